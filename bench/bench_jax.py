"""The paths users of JAX take through pjrt_dlpack.jax, against JAX's own
DLPack, in one process, interleaved (bench_rounds.py), 16x16 float32:

  jax.np_own        numpy.from_dlpack(x)                 (JAX's own export)
  jax.np_ours       numpy.from_dlpack(pjax.export(x))
  jax.torch_own     torch.from_dlpack(x)
  jax.torch_ours    torch.from_dlpack(pjax.export(x))
  jax.jnp_from_torch   jax.numpy.from_dlpack(t)          (t: a torch tensor)
  jax.pjax_from_torch  pjax.from_dlpack(t)
  jax.client_cpu    client.from_dlpack(pjax.export(x))   (x on JAX's cpu, a cpu
                                                          client of the reference
                                                          plugin)
  jax.client_xpu    the same on the reference plugin as JAX platform xpu:
                    pjax.client(y).from_dlpack(pjax.export(y)), JAX's own client

With --oneapi PLUGIN (Intel's plugin, run in the environment of
`scripts/plugins.sh env oneapi`), only the same exchange on Intel's plugin
on ze_sim, JAX platform oneapi, against the cpu's in the same process:

  jax.oneapi.client_cpu   client.from_dlpack(pjax.export(x)), as jax.client_cpu
  jax.oneapi.client       pjax.client(z).from_dlpack(pjax.export(z)), z on oneapi
  jax.oneapi.capsule      the same given the capsule of __dlpack__(max_version=(1, 3)):
                          the view names no stream (the plugin orders nothing)

ze_sim runs each command without its simulated delay there (ZE_SIM_DELAY_US=0
unless set), so the row is what the host does.

x is on JAX's cpu; y on the reference plugin driven by JAX as platform xpu
(PJRT_NAMES_AND_LIBRARY_PATHS, set here before JAX starts). The torch cases
run where PyTorch is installed (the modern environment, not the JAX matrix's),
the xpu case where the release can wrap JAX's client (0.10.1+). Prints
"version" lines, then per case its rounds and result line (bench_rounds.emit);
with --summary, one line "jax<TAB>RELEASE (Python V)<TAB>np ratio<TAB>torch ratio" of the
per-round medians of ours over JAX's own (scripts/jax-matrix.sh).

  PYTHONPATH=build-bench/python $(bash scripts/python-env.sh python) \\
      bench/bench_jax.py --plugin build-bench/lib/libpjrt_ref.so [--smoke] [--summary]
  (eval "$(bash scripts/plugins.sh env oneapi build-bench)"; PYTHONPATH=build-bench/python \
      $(bash scripts/python-env.sh python) bench/bench_jax.py \
      --plugin build-bench/lib/libpjrt_ref.so --oneapi $(bash scripts/plugins.sh path oneapi))
"""
import argparse
import json
import os
import platform
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_rounds  # noqa: E402

SHAPE = (16, 16)


def jax_with_plugin(plugin, oneapi):
    """Imports JAX with the reference plugin registered as platform xpu, or
    with Intel's plugin (`oneapi`: its path) as platform oneapi."""
    if oneapi is not None:
        os.environ["PJRT_NAMES_AND_LIBRARY_PATHS"] = f"oneapi:{os.path.abspath(oneapi)}"
        os.environ.setdefault("ZE_SIM_DELAY_US", "0")
    else:
        config = os.path.join(tempfile.mkdtemp(prefix="bench_jax_"), "xpu.json")
        with open(config, "w") as f:
            json.dump({"library_path": os.path.abspath(plugin),
                       "create_options": {"platform": "xpu"}}, f)
        os.environ["PJRT_NAMES_AND_LIBRARY_PATHS"] = f"xpu:{config}"
    os.environ.pop("JAX_PLATFORMS", None)
    import jax

    return jax


def oneapi_cases(plugin, np, jax, pjax, pd):
    """The exchange on Intel's plugin (platform oneapi) and on the cpu."""
    x = jax.device_put(np.ones(SHAPE, np.float32), jax.devices("cpu")[0])
    z = jax.device_put(np.ones(SHAPE, np.float32), jax.devices("oneapi")[0])
    cpu = pd.load_plugin(plugin).client(platform="cpu")
    intel = pjax.client(z)
    assert cpu.from_dlpack(pjax.export(x)).unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    assert intel.from_dlpack(pjax.export(z)).unsafe_buffer_pointer() == z.unsafe_buffer_pointer()
    return [("jax.oneapi.client_cpu", lambda: cpu.from_dlpack(pjax.export(x))),
            ("jax.oneapi.client", lambda: intel.from_dlpack(pjax.export(z))),
            ("jax.oneapi.capsule",
             lambda: intel.from_dlpack(pjax.export(z).__dlpack__(max_version=(1, 3))))]


def cases_of(plugin, np, jax, pjax, pd, torch):
    x = jax.device_put(np.ones(SHAPE, np.float32), jax.devices("cpu")[0])
    cpu = pd.load_plugin(plugin).client(platform="cpu")
    # Each exchange is checked once, so a broken one is not timed.
    assert np.from_dlpack(pjax.export(x)).ctypes.data == x.unsafe_buffer_pointer()
    assert cpu.from_dlpack(pjax.export(x)).unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    cases = [
        ("jax.np_own", lambda: np.from_dlpack(x)),
        ("jax.np_ours", lambda: np.from_dlpack(pjax.export(x))),
        ("jax.client_cpu", lambda: cpu.from_dlpack(pjax.export(x))),
    ]
    if torch is not None:
        t = torch.ones(SHAPE)
        assert torch.from_dlpack(pjax.export(x)).data_ptr() == x.unsafe_buffer_pointer()
        assert pjax.from_dlpack(t).unsafe_buffer_pointer() == t.data_ptr()
        cases += [
            ("jax.torch_own", lambda: torch.from_dlpack(x)),
            ("jax.torch_ours", lambda: torch.from_dlpack(pjax.export(x))),
            ("jax.jnp_from_torch", lambda: jax.numpy.from_dlpack(t)),
            ("jax.pjax_from_torch", lambda: pjax.from_dlpack(t)),
        ]
    try:
        y = jax.device_put(np.ones(SHAPE, np.float32), jax.devices("xpu")[0])
        xpu = pjax.client(y)
    except NotImplementedError:  # a release that cannot wrap JAX's client
        return cases
    assert xpu.from_dlpack(pjax.export(y)).unsafe_buffer_pointer() == y.unsafe_buffer_pointer()
    return cases + [("jax.client_xpu", lambda: xpu.from_dlpack(pjax.export(y)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="run each case once; measure nothing")
    parser.add_argument("--plugin", default=os.environ.get("PJRT_REF_PLUGIN"))
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--budget-ms", type=float, default=4.0,
                        help="time per case and round, which sets the calls per round")
    parser.add_argument("--summary", action="store_true",
                        help="only the line of ratios per release (scripts/jax-matrix.sh)")
    parser.add_argument("--oneapi", metavar="PLUGIN",
                        help="only the exchange on Intel's plugin (its path) against the cpu's")
    args = parser.parse_args()
    if args.smoke or os.environ.get("PJDL_BENCH_SMOKE"):
        args.rounds = 1
    if args.plugin is None:
        parser.error("--plugin (or PJRT_REF_PLUGIN) names the reference plugin")
    if args.oneapi is not None and (args.summary or not os.path.isfile(args.oneapi)):
        parser.error(f"--oneapi {args.oneapi}: " + (
            "not with --summary" if args.summary else "no such file (Intel's plugin)"))
    jax = jax_with_plugin(args.plugin, args.oneapi)
    import jax.numpy  # noqa: F401
    import numpy as np

    import pjrt_dlpack as pd
    import pjrt_dlpack.jax as pjax
    try:
        if args.oneapi is not None:  # no PyTorch case there
            raise ImportError
        import torch

        torch.set_num_threads(1)
    except ImportError:  # the JAX matrix's environments have no PyTorch
        torch = None
    versions = [("python", platform.python_version()), ("numpy", np.__version__),
                ("jax", jax.__version__)] + ([("torch", torch.__version__)] if torch else [])
    if not args.summary:
        for name, version in versions:
            print(f"version\t{name}\t{version}", flush=True)
    cases = (oneapi_cases(args.plugin, np, jax, pjax, pd) if args.oneapi is not None
             else cases_of(args.plugin, np, jax, pjax, pd, torch))
    if args.rounds == 1:
        numbers = {key: 1 for key, _ in cases}
    else:
        for _, fn in cases:  # warm up
            bench_rounds.calibrate(fn, args.budget_ms / 1e3, 2000)
        numbers = {key: bench_rounds.calibrate(fn, args.budget_ms / 1e3, 2000)
                   for key, fn in cases}
    samples = bench_rounds.interleave(cases, args.rounds, numbers)
    if not args.summary:
        bench_rounds.emit(cases, samples)
        return 0

    def paired(ours, own):
        if ours not in samples or own not in samples:
            return "n/a"
        return f"{statistics.median(a / b for a, b in zip(samples[ours], samples[own])):.2f}"

    print(f"jax\t{jax.__version__} (Python {platform.python_version()})\t"
          f"{paired('jax.np_ours', 'jax.np_own')}\t"
          f"{paired('jax.torch_ours', 'jax.torch_own')}", flush=True)
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    # As bench_python_modern.py: no teardown of JAX's clients (a CPU client's
    # worker once hung at exit); the results are printed by now.
    os._exit(status)
