"""pip's ways in, each installed into a fresh venv and run from a folder outside the
source tree (tests/installed_check.py for the module, the `structtest` command for the
CLI):
  1. `pip wheel --no-build-isolation --no-index .` with Debian's python3, the wheel then
     installed with `pip install --no-index` into a venv without the system's packages;
  2. `pip install --no-build-isolation --no-index .` into a venv of Debian's python3
     with --system-site-packages (where setuptools and wheel come from);
  3. the wheel into a venv of every other CPython on PATH whose extension ABI is the
     build's (the same x.y): another Python of another x.y needs a build of its own,
     which a plain `pip install .` makes (minutes: not run here, said as skipped).
setup.py takes the module and the binary from this build (STRUCTTEST_BUILD_DIR) instead
of building them again, so that the test costs a minute, not a build's ten; a plain
`pip install .` builds from scratch in build/pip-*/.
Everything goes into a temporary folder, removed when the test passes.
Usage: python3 wheel_test.py SOURCE_DIR BUILD_DIR VERSION
Exit 0 passed, 1 failed, 77 skipped (no venv or pip for Debian's python3)."""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

SOURCE, BUILD, VERSION = sys.argv[1:4]
# Outside the source tree (a build folder may be inside it): what a user has.
WORK = tempfile.mkdtemp(prefix="structtest-{}-".format(os.path.basename(__file__)[:-3]))
CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "installed_check.py")
WORKER_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker_files_check.py")
DEBIAN_PYTHON = "/usr/bin/python3"
SKIP = 77


def fail(message):
    print("wheel_test: FAILED: " + message + " (its files are in " + WORK + ")", flush=True)
    sys.exit(1)


def run(command, cwd=None, env=None, what=None):
    """Runs command; its output on failure. Returns (stdout, seconds)."""
    start = time.monotonic()
    r = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.monotonic() - start
    if r.returncode != 0:
        fail("{} exited {}:\n{}{}".format(what or " ".join(command), r.returncode, r.stdout, r.stderr))
    return r.stdout, took


def clean_env(**extra):
    """The environment of a user's shell: nothing that points into this build."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "STRUCTTEST_WORKER", "STRUCTTEST_BINARY", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def venv(python, name, system_site=False):
    """A fresh venv of python, and the pip command that installs into it: Debian's pip
    with --python, the same pip a venv's own would be, without ensurepip's copy of it
    into every venv (15-20 s of a loaded machine each)."""
    path = os.path.join(WORK, name)
    command = [python, "-m", "venv", "--without-pip", path]
    _, took = run(command + (["--system-site-packages"] if system_site else []), env=clean_env(),
                  what="{} -m venv".format(python))
    return path, [DEBIAN_PYTHON, "-m", "pip", "--python", os.path.join(path, "bin", "python")], took


def check_installed(env_dir, label):
    """The module and the CLI of the venv env_dir, from a folder outside the tree."""
    away = os.path.join(WORK, "elsewhere")
    os.makedirs(away, exist_ok=True)
    env = clean_env(PATH=os.path.join(env_dir, "bin") + os.pathsep + os.environ.get("PATH", ""))
    out, took = run([os.path.join(env_dir, "bin", "python"), CHECK, env_dir, VERSION], cwd=away,
                    env=env, what=label + ": installed_check.py")
    print("{}: {}".format(label, out.strip()))
    # The worker's files, where the module (its package folder) and the binary (the
    # venv's share/structtest) look for them: both there, and the worker starts.
    packages = glob.glob(os.path.join(env_dir, "lib", "python*", "site-packages", "structtest"))
    if len(packages) != 1:
        fail("{}: no one site-packages/structtest in {}: {}".format(label, env_dir, packages))
    out, _ = run([os.path.join(env_dir, "bin", "python"), WORKER_CHECK,
                  os.path.join(env_dir, "bin", "python"), packages[0],
                  os.path.join(env_dir, "share", "structtest")], cwd=away, env=env,
                 what=label + ": worker_files_check.py")
    print("".join("{}: {}\n".format(label, line) for line in out.splitlines()), end="")
    # The console command is the binary itself, on the venv's PATH, with its sandbox
    # worker found in the venv's share/structtest (the code samples run Python).
    structtest = shutil.which("structtest", path=env["PATH"])
    if structtest != os.path.join(env_dir, "bin", "structtest"):
        fail("{}: `structtest` on the venv's PATH is {}, not the venv's".format(label, structtest))
    out, _ = run(["structtest", "--version"], cwd=away, env=env, what=label + ": structtest --version")
    if not out.startswith("structtest " + VERSION):
        fail("{}: structtest --version printed {!r}, expected 'structtest {} ...'".format(
            label, out[:80], VERSION))
    out, took_cli = run(["structtest", "run", "--tasks", "code,summarization", "--limit", "2"],
                        cwd=away, env=env, what=label + ": structtest run --tasks code,summarization")
    if "oracle" not in out or "100.0" not in out:
        fail("{}: structtest run printed no oracle table at 100%:\n{}".format(label, out))
    print("{}: structtest --version, and a run of the built-in responders over code and "
          "summarization in {:.2f} s".format(label, took_cli))


def other_pythons():
    """sys.executable of every python3 on PATH that is not Debian's (a pyenv shim names
    the interpreter it runs)."""
    found = []
    seen = {os.path.realpath(DEBIAN_PYTHON)}
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, "python3")
        if not os.access(candidate, os.X_OK) or os.path.realpath(candidate) in seen:
            continue
        r = subprocess.run([candidate, "-c", "import sys, sysconfig; print(sys.executable); "
                            "print(sysconfig.get_config_var('EXT_SUFFIX'))"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            continue
        executable, suffix = r.stdout.split()
        if os.path.realpath(executable) in seen:
            continue
        seen.add(os.path.realpath(executable))
        found.append((executable, suffix))
    return found


def main():
    for module in ("venv", "ensurepip", "pip", "setuptools", "wheel"):
        r = subprocess.run([DEBIAN_PYTHON, "-c", "import " + module], capture_output=True)
        if r.returncode != 0:
            print("wheel_test: SKIPPED: Debian's python3 cannot import {} (python3-venv, "
                  "python3-pip, python3-setuptools, python3-wheel: scripts/install-deps)".format(module))
            os.rmdir(WORK)
            sys.exit(SKIP)
    build_env = clean_env(STRUCTTEST_BUILD_DIR=BUILD)
    dist = os.path.join(WORK, "dist")

    # 1. The wheel, into a venv of Debian's python3 without the system's packages.
    _, took = run([DEBIAN_PYTHON, "-m", "pip", "wheel", "--no-build-isolation", "--no-index",
                   "--no-deps", "-w", dist, SOURCE], env=build_env, what="pip wheel")
    wheels = glob.glob(os.path.join(dist, "structtest-{}-*.whl".format(VERSION)))
    if len(wheels) != 1:
        fail("pip wheel wrote {} (expected one structtest-{}-*.whl)".format(os.listdir(dist), VERSION))
    wheel = wheels[0]
    print("wheel: {} ({:.1f} MB) in {:.1f} s".format(os.path.basename(wheel),
                                                      os.path.getsize(wheel) / 1e6, took))
    env_dir, pip, took_venv = venv(DEBIAN_PYTHON, "venv-wheel")
    _, took = run(pip + ["install", "--no-index", wheel],
                  env=clean_env(), what="pip install of the wheel")
    print("wheel into a fresh venv of python {}: venv {:.1f} s, pip install {:.1f} s".format(
        sys.version.split()[0], took_venv, took))
    check_installed(env_dir, "wheel, Debian's python3")

    # 2. pip install . into a venv of Debian's python3 with its system packages.
    env_dir, pip, _ = venv(DEBIAN_PYTHON, "venv-source", system_site=True)
    _, took = run(pip + ["install", "--no-build-isolation", "--no-index", SOURCE], env=build_env,
                  what="pip install .")
    print("pip install --no-build-isolation --no-index . in {:.1f} s".format(took))
    check_installed(env_dir, "pip install ., Debian's python3")

    # 3. The other Pythons on PATH.
    ours = sysconfig.get_config_var("EXT_SUFFIX")
    for n, (python, suffix) in enumerate(other_pythons()):
        if suffix != ours:
            print("SKIPPED: {} (extension suffix {}): this build's module is {}; `pip install .` "
                  "with that Python builds one of its own (not run here: a full build)".format(
                      python, suffix, ours))
            continue
        env_dir, pip, _ = venv(python, "venv-other-{}".format(n))
        run(pip + ["install", "--no-index", wheel], env=clean_env(),
            what="pip install of the wheel into a venv of " + python)
        check_installed(env_dir, "wheel, " + python)
    shutil.rmtree(WORK)
    print("wheel_test: passed")


if __name__ == "__main__":
    main()
