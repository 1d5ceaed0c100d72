"""python -m pjrt_dlpack: the pjrt-dlpack command bundled with the package.

Runs ``pjrt_dlpack/bin/pjrt-dlpack`` (installed with the wheel; a link to
the built command in a build tree) with the same arguments, so that
``python -m pjrt_dlpack info`` and ``python -m pjrt_dlpack check`` work
wherever the package imports. The command's exit status is the exit
status. Without a plugin argument the command uses $PJRT_DLPACK_PLUGIN,
else the reference plugin bundled in the package.
"""
import os
import sys

__all__ = ["command_path", "main"]

_PREFACE = """\
python -m pjrt_dlpack runs the pjrt-dlpack command bundled with this package
({path}); it takes the command's arguments and exits with its status.

"""


def command_path() -> str:
    """The bundled pjrt-dlpack executable's path (it may not exist)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "pjrt-dlpack")


def main(argv: "list[str] | None" = None) -> int:
    """Runs the bundled command with `argv` (default: sys.argv[1:]).

    Replaces the process with the command, so this returns only on failure
    to start it (127, with a message on stderr).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    path = command_path()
    if not os.access(path, os.X_OK):
        sys.stderr.write(
            f"pjrt_dlpack: the bundled pjrt-dlpack command is missing: {path}\n"
            "(reinstall the package, or build the project: it links the command there)\n"
        )
        return 127
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(_PREFACE.format(path=path))
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        # exec, not a child: signals, the terminal and the exit status are
        # the command's own.
        os.execv(path, [path, *args])
    except OSError as e:
        sys.stderr.write(f"pjrt_dlpack: cannot run {path}: {e}\n")
        return 127
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
