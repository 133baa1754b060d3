"""`pip install .` for structtest: CMake builds the Python module (structtest._core) for
the Python that runs pip, and the structtest binary; setuptools packs them with the
Python layer (src/pymodule/structtest) and the sandbox's worker script.

What the installed package holds, and where each part finds the rest:
  site-packages/structtest/          __init__.py, _scoring.py, _rewards.py, _core*.so,
                                     structtest_worker.py (the module's sandbox worker) and
                                     structtest_code_{strict,paper,generator}.py (the
                                     code family's strict rules, paper rules and
                                     generation jobs, which the worker imports from its
                                     own folder)
  bin/structtest                     the CLI (the wheel's scripts)
  share/structtest/structtest_worker.py, structtest_code_{strict,paper,generator}.py
                                     where the binary looks for the worker, as in
                                     `cmake --install`'s layout
NLTK's Punkt model is compiled into both, so nothing else is needed at run time but the
Debian libraries they link (RUNTIME_LIBRARIES below; docs/install.md).

Environment:
  STRUCTTEST_BUILD_DIR=DIR   take the module and the binary from an existing CMake build
                             folder, as they are, instead of building (tests and
                             scripts/package reuse a build this way). Its module must be
                             built for this Python's ABI (EXT_SUFFIX): checked.
  CXX                        the compiler of a fresh build (default: clang++ if found)
  CMAKE_BUILD_PARALLEL_LEVEL jobs of a fresh build (default: one per core)
A fresh build (Release, without tests) goes into build/pip-<python tag>/cmake, reused by
the next pip install from this checkout with the same Python.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from distutils.command.build_scripts import build_scripts  # setuptools' copy (imported above)

ROOT = os.path.dirname(os.path.abspath(__file__))
# The sandbox's worker script and the modules it imports (the code family's strict
# rules, paper rules and generation jobs), each as (source, the name it has beside the
# others): they go together (src/sandbox/CMakeLists.txt deploys the same list).
WORKER_FILES = [(os.path.join(ROOT, "src", "sandbox", "worker.py"), "structtest_worker.py"),
                (os.path.join(ROOT, "src", "tasks", "code", "strict.py"),
                 "structtest_code_strict.py"),
                (os.path.join(ROOT, "src", "tasks", "code", "paper.py"),
                 "structtest_code_paper.py"),
                (os.path.join(ROOT, "src", "tasks", "code", "generator.py"),
                 "structtest_code_generator.py")]
BINARY = "structtest"

# The Debian 12 packages of the shared libraries the module and the binary link (ldd of
# each, dpkg -S), and libcurl4, which the model clients open at run time (dlopen).
RUNTIME_LIBRARIES = ["libc6", "libstdc++6", "libgcc-s1", "libfmt9", "libicu72", "libisal2",
                     "libmicrohttpd12", "libsimdjson14", "libsqlite3-0", "libxxhash0", "libcurl4"]


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(structtest VERSION (\d+\.\d+\.\d+)", f.read())
    if not match:
        sys.exit("setup.py: CMakeLists.txt: no `project(structtest VERSION x.y.z)`")
    return match.group(1)


def _python_tag():
    """cpython-311-1a2b3c4d: the interpreter's name, version and path, so that each Python
    gets a build folder of its own."""
    where = hashlib.sha1(os.path.realpath(sys.executable).encode()).hexdigest()[:8]
    return "{}-{}{}-{}".format(sys.implementation.name, *sys.version_info[:2], where)


def _fail(message):
    sys.exit("setup.py: error: " + message)


class CMakeBuild(build_ext):
    """Builds (or, with STRUCTTEST_BUILD_DIR, takes) _core and the binary, copies the
    module and the worker's files into the package, and leaves the binary for
    build_scripts."""

    def run(self):
        build_dir = self._build()
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        module = os.path.join(build_dir, "python", "structtest", "_core" + suffix)
        if not os.path.isfile(module):
            built = [f for f in os.listdir(os.path.dirname(module))
                     if f.startswith("_core")] if os.path.isdir(os.path.dirname(module)) else []
            _fail("{}: no module _core{} for this Python ({}){}".format(
                build_dir, suffix, sys.executable,
                "; it holds {} (built for another Python: unset STRUCTTEST_BUILD_DIR to build "
                "for this one)".format(", ".join(built)) if built else
                " (was it configured with pybind11-dev installed?)"))
        binary = os.path.join(build_dir, BINARY)
        if not os.path.isfile(binary):
            _fail("{}: no {} binary (build the target structtest first)".format(build_dir, BINARY))
        package = os.path.join(self.build_lib, "structtest")
        os.makedirs(package, exist_ok=True)
        _copy(module, os.path.join(package, "_core" + suffix), strip=True)
        _copy_worker_files(package)
        scripts = os.path.join(self.build_temp, "scripts")
        os.makedirs(scripts, exist_ok=True)
        _copy(binary, os.path.join(scripts, BINARY), strip=True)
        self.distribution.structtest_binary = os.path.join(scripts, BINARY)

    def _build(self):
        given = os.environ.get("STRUCTTEST_BUILD_DIR")
        if given:
            given = os.path.abspath(given)
            if not os.path.isfile(os.path.join(given, "CMakeCache.txt")):
                _fail("STRUCTTEST_BUILD_DIR={}: not a CMake build folder (no CMakeCache.txt)"
                      .format(given))
            return given
        cmake = shutil.which("cmake")
        if not cmake:
            _fail("cmake not found: install cmake (scripts/install-deps installs it and the "
                  "libraries the build needs)")
        build_dir = os.path.join(ROOT, "build", "pip-" + _python_tag(), "cmake")
        if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
            configure = [cmake, "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                         "-DSTRUCTTEST_BUILD_TESTS=OFF", "-DSTRUCTTEST_BUILD_BENCH=OFF",
                         # A venv's python is a link to the interpreter whose headers
                         # and ABI it has: the build names that, which outlives the venv.
                         "-DPython_EXECUTABLE=" + os.path.realpath(sys.executable)]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            compiler = os.environ.get("CXX") or shutil.which("clang++")
            if compiler:
                configure.append("-DCMAKE_CXX_COMPILER=" + compiler)
            _run(configure)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        _run([cmake, "--build", build_dir, "-j", jobs, "--target", "structtest_pymodule", BINARY])
        return build_dir


class CopyBinary(build_scripts):
    """The wheel's scripts: the structtest binary as built (build_scripts would read it
    as a Python script to rewrite its #! line)."""

    def run(self):
        self.run_command("build_ext")
        binary = self.distribution.structtest_binary
        os.makedirs(self.build_dir, exist_ok=True)
        target = os.path.join(self.build_dir, BINARY)
        shutil.copy2(binary, target)
        self.outfiles = [target]

    def get_outputs(self):
        return [os.path.join(self.build_dir, BINARY)]


def _run(command):
    print("setup.py: " + " ".join(command), flush=True)
    if subprocess.call(command) != 0:
        _fail("{} failed (its output is above)".format(os.path.basename(command[0])))


def _copy_worker_files(folder):
    """The worker's files into `folder`, under the names they have beside each other."""
    for source, name in WORKER_FILES:
        shutil.copyfile(source, os.path.join(folder, name))


def _copy(source, target, strip):
    """Copies source; without its debugging information when `strip` is on the PATH
    (a RelWithDebInfo build's module and binary are most of their size in it)."""
    shutil.copy2(source, target)
    if strip and shutil.which("strip"):
        subprocess.check_call(["strip", "--strip-debug", target])


# setuptools' own files go under build/ (ignored by git), next to the CMake build; so
# do the worker's files under the names the binary looks for (data_files cannot rename).
BUILD_BASE = os.path.join("build", "pip-" + _python_tag())
os.makedirs(os.path.join(ROOT, BUILD_BASE, "share"), exist_ok=True)
_copy_worker_files(os.path.join(ROOT, BUILD_BASE, "share"))

setup(
    name="structtest",
    version=_version(),
    description="StructTest: score how well a language model follows compositional "
                "formatting instructions, with deterministic checkers (C++)",
    long_description="structtest's Python module (import structtest: generate, score, "
                     "score_batch, reward adapters for TRL and verl) and its CLI "
                     "(structtest). Built for Debian 12 (bookworm); at run time it needs "
                     "these Debian packages: " + ", ".join(RUNTIME_LIBRARIES) + ". "
                     "The code subtasks run Python programs with /usr/bin/python3 or "
                     "python3 on PATH (numpy, when it imports). See docs/install.md.",
    long_description_content_type="text/plain",
    license="see the source repository",
    python_requires=">=3.9",
    packages=["structtest"],
    package_dir={"structtest": "src/pymodule/structtest"},
    ext_modules=[Extension("structtest._core", sources=[])],
    scripts=[os.path.join(BUILD_BASE, "scripts", BINARY)],
    data_files=[("share/structtest", [os.path.join(BUILD_BASE, "share", name)
                                      for _, name in WORKER_FILES])],
    cmdclass={"build_ext": CMakeBuild, "build_scripts": CopyBinary},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
