"""The package as a user sees it: type stubs that name exactly what the
module has, a docstring on every public object, py.typed, the bundled
plugin found by default, and python -m pjrt_dlpack.

The stubs are compared by name (parsed with ast), not type-checked: that
needs mypy, which the test environments do not have.
"""
import ast
import inspect
import os
import subprocess
import sys
import types

import pjrt_dlpack
from pjrt_dlpack import _pjrt_dlpack as core

PACKAGE_DIR = os.path.dirname(pjrt_dlpack.__file__)

# Descriptor types of members defined in C (PyMethodDef, PyGetSetDef,
# PyMemberDef): each is part of the API, dunders included (__dlpack__).
C_MEMBER_TYPES = (
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    staticmethod,
    classmethod,
)


def parse_stub(name):
    path = os.path.join(PACKAGE_DIR, name)
    assert os.path.isfile(path), f"{name} is missing from {PACKAGE_DIR}"
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), filename=path)


def stub_names(tree):
    """Top-level names a stub declares: defs, classes, annotated or plain
    assignments, and `import x as x` re-exports. Names starting with one
    underscore are the stub's own helpers (type aliases)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.asname == a.name)
    return {n for n in names if is_public(n)}


def stub_all(tree):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return None


def is_public(name):
    return not name.startswith("_") or name == "__version__"


def runtime_names(module):
    # Submodules are left out: pjrt_dlpack.jax, say, is an attribute only
    # once something imported it.
    return {
        n
        for n in dir(module)
        if is_public(n) and not isinstance(getattr(module, n), types.ModuleType)
    }


def stub_classes(tree):
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def stub_members(cls_node):
    names = set()
    for node in cls_node.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            # An alias of a member declared above (release_to_dlpack = __dlpack__).
            aliased = ast.unparse(node.value)
            assert aliased in names, f"{cls_node.name}: alias of an undeclared {aliased}"
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def c_members(cls):
    """The members a C type defines itself: public ones and C-defined
    dunders (not slot wrappers such as __repr__, which every type has)."""
    return {
        n
        for n, v in vars(cls).items()
        if isinstance(v, C_MEMBER_TYPES) and (not n.startswith("_") or n.startswith("__"))
    }


# ---------------------------------------------------------------- stubs


def test_package_stub_names_match_runtime():
    tree = parse_stub("__init__.pyi")
    assert stub_names(tree) == runtime_names(pjrt_dlpack)
    assert stub_all(tree) == set(pjrt_dlpack.__all__)


def test_extension_stub_names_match_runtime():
    assert stub_names(parse_stub("_pjrt_dlpack.pyi")) == runtime_names(core)


def test_stub_classes_match_runtime_members_and_bases():
    for name, node in stub_classes(parse_stub("_pjrt_dlpack.pyi")).items():
        if name.startswith("_"):
            continue  # the stub's own protocols
        cls = getattr(core, name)
        declared = stub_members(node)
        stub_bases = {ast.unparse(b) for b in node.bases} - {"Protocol"}
        assert stub_bases == {b.__name__ for b in cls.__bases__} - {"object"}, name
        if issubclass(cls, BaseException):
            # code and code_name are set on each raised instance.
            continue
        missing = c_members(cls) - declared
        assert not missing, f"{name}: not in the stub: {sorted(missing)}"
        extra = {m for m in declared if not hasattr(cls, m)}
        assert not extra, f"{name}: in the stub only: {sorted(extra)}"


def test_stub_constants_match_runtime_values():
    for node in parse_stub("_pjrt_dlpack.pyi").body:
        if (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and isinstance(node.target, ast.Name)
            and is_public(node.target.id)
        ):
            name = node.target.id
            assert getattr(core, name) == ast.literal_eval(node.value), name


def test_py_typed_and_stubs_ship_with_the_package():
    for name in ("py.typed", "__init__.pyi", "_pjrt_dlpack.pyi"):
        assert os.path.isfile(os.path.join(PACKAGE_DIR, name)), name


# ----------------------------------------------------------- docstrings


def own_doc(obj):
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else obj.__doc__
    return doc.strip() if isinstance(doc, str) else ""


def test_every_public_object_has_a_docstring():
    lacking = []
    for module in (pjrt_dlpack, core):
        if not own_doc(module):
            lacking.append(module.__name__)
        for name in runtime_names(module):
            obj = getattr(module, name)
            if not (isinstance(obj, type) or callable(obj)):
                continue  # constants: documented in the stubs and README
            if not own_doc(obj):
                lacking.append(f"{module.__name__}.{name}")
            if isinstance(obj, type):
                for member in sorted(c_members(obj)):
                    if not own_doc(inspect.getattr_static(obj, member)):
                        lacking.append(f"{module.__name__}.{name}.{member}")
    assert not lacking, f"no docstring: {lacking}"


def test_python_files_document_their_public_objects():
    # Read, not imported: a submodule may need a framework this environment
    # lacks (pjrt_dlpack.jax needs JAX).
    lacking = []
    for file in sorted(os.listdir(PACKAGE_DIR)):
        if not file.endswith(".py"):
            continue
        with open(os.path.join(PACKAGE_DIR, file), encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=file)
        if not ast.get_docstring(tree):
            lacking.append(file)
        for node in tree.body:
            nodes = [node]
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                nodes += [n for n in node.body if isinstance(n, ast.FunctionDef)]
            for n in nodes:
                if (
                    isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and not n.name.startswith("_")
                    and not ast.get_docstring(n)
                ):
                    lacking.append(f"{file}: {n.name}")
    assert not lacking, f"no docstring: {lacking}"


# ------------------------------------------- the bundled plugin and command


def run_python(args, **env):
    """Runs this interpreter on the package in a clean child: no plugin
    chosen by the environment unless given."""
    child_env = {
        k: v for k, v in os.environ.items() if k not in ("PJRT_DLPACK_PLUGIN", "PJRT_NAMES_AND_LIBRARY_PATHS")
    }
    child_env.update(env)
    return subprocess.run(
        [sys.executable, *args], env=child_env, capture_output=True, text=True, timeout=300
    )


# Prints the default plugin's path, or the code name of its error.
LOAD_DEFAULT_PLUGIN = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "load_default_plugin.py")


def test_load_plugin_finds_the_bundled_plugin():
    r = run_python([LOAD_DEFAULT_PLUGIN])
    assert r.returncode == 0, r.stderr
    assert os.path.dirname(r.stdout.strip()) == PACKAGE_DIR, r.stdout


def test_environment_overrides_the_bundled_plugin():
    missing = os.path.join(PACKAGE_DIR, "no-such-plugin.so")
    r = run_python([LOAD_DEFAULT_PLUGIN], PJRT_DLPACK_PLUGIN=missing)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("NOT_FOUND") and missing in r.stdout, r.stdout


def test_python_m_help_names_the_command():
    r = run_python(["-m", "pjrt_dlpack", "--help"])
    assert r.returncode == 0, r.stderr
    assert "python -m pjrt_dlpack" in r.stdout and "Usage: pjrt-dlpack" in r.stdout


def test_python_m_info_uses_the_bundled_plugin():
    r = run_python(["-m", "pjrt_dlpack", "info"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "libpjrt_ref.so" in r.stdout


def test_python_m_passes_the_exit_status_through():
    # 3: the plugin could not be loaded (pjrt-dlpack --help).
    r = run_python(["-m", "pjrt_dlpack", "info", "/nonexistent/libnothing.so"])
    assert r.returncode == 3, r.stdout + r.stderr
