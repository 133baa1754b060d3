"""scripts/package's .deb, as a user receives it: `dpkg-deb -I` names the Debian packages
it depends on, `dpkg-deb -c` lists only structtest's files, and `dpkg-deb -x` into a
temporary folder gives a binary that runs from there (its sandbox worker found in
../share/structtest beside it, the Punkt model compiled in) and a Python module that
Debian's python3 imports and scores with from a folder outside the source tree.
scripts/package packages this build as it is (--build-dir), so that the test costs
a minute, not a build's ten; on its own it makes a Release build in build/package/.
Everything goes into a temporary folder, removed when the test passes.
Usage: python3 deb_test.py SOURCE_DIR BUILD_DIR VERSION
Exit 0 passed, 1 failed, 77 skipped (no dpkg-deb or dpkg-shlibdeps)."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE, BUILD, VERSION = sys.argv[1:4]
# Outside the source tree (a build folder may be inside it): what a user has.
WORK = tempfile.mkdtemp(prefix="structtest-{}-".format(os.path.basename(__file__)[:-3]))
CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "installed_check.py")
WORKER_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker_files_check.py")

# What the package may hold: the binary, its worker, the Python module, the headers, the
# library and its CMake package (lib/ or lib/<multiarch>/, by how the build was configured).
ALLOWED = [r"usr/bin/structtest",
           r"usr/share/structtest/structtest_(worker|code_strict|code_paper|code_generator)\.py",
           r"usr/lib/python3/dist-packages/structtest/[A-Za-z_]+\.py",
           r"usr/lib/python3/dist-packages/structtest/_core\.cpython-[^/]+\.so",
           r"usr/include/structtest/[a-z_]+\.h",
           r"usr/lib/([a-z0-9_]+-linux-gnu[a-z]*/)?libstructtest\.so(\.[0-9.]+)?",
           r"usr/lib/([a-z0-9_]+-linux-gnu[a-z]*/)?cmake/structtest/[A-Za-z-]+\.cmake"]
REQUIRED = ["usr/bin/structtest", "usr/share/structtest/structtest_worker.py",
            "usr/share/structtest/structtest_code_strict.py",
            "usr/share/structtest/structtest_code_paper.py",
            "usr/share/structtest/structtest_code_generator.py",
            "usr/lib/python3/dist-packages/structtest/__init__.py",
            "usr/lib/python3/dist-packages/structtest/structtest_worker.py",
            "usr/lib/python3/dist-packages/structtest/structtest_code_strict.py",
            "usr/lib/python3/dist-packages/structtest/structtest_code_paper.py",
            "usr/lib/python3/dist-packages/structtest/structtest_code_generator.py",
            "usr/include/structtest/version.h"]


def fail(message):
    print("deb_test: FAILED: " + message + " (its files are in " + WORK + ")", flush=True)
    sys.exit(1)


def run(command, cwd=None, env=None):
    start = time.monotonic()
    r = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail("{} exited {}:\n{}{}".format(" ".join(command), r.returncode, r.stdout, r.stderr))
    return r.stdout, time.monotonic() - start


def main():
    for tool in ("dpkg-deb", "dpkg-shlibdeps"):
        if not shutil.which(tool):
            print("deb_test: SKIPPED: {} not found (dpkg-dev: scripts/install-deps)".format(tool))
            os.rmdir(WORK)
            sys.exit(77)
    dist = os.path.join(WORK, "dist")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STRUCTTEST_WORKER")}
    _, took = run([os.path.join(SOURCE, "scripts", "package"), "--build-dir", BUILD, "--out", dist],
                  env=env)
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    deb = os.path.join(dist, "structtest_{}_{}.deb".format(VERSION, arch))
    if not os.path.isfile(deb):
        fail("scripts/package wrote {}, not {}".format(os.listdir(dist), os.path.basename(deb)))
    if not glob.glob(os.path.join(dist, "structtest-{}-*.whl".format(VERSION))):
        fail("scripts/package wrote no wheel: {}".format(os.listdir(dist)))
    print("scripts/package: {} ({:.1f} MB) and the wheel in {:.1f} s".format(
        os.path.basename(deb), os.path.getsize(deb) / 1e6, took))

    info, _ = run(["dpkg-deb", "-I", deb])
    fields = dict(re.findall(r"^ ([A-Za-z-]+): (.*)$", info, re.M))
    if fields.get("Version") != VERSION or fields.get("Package") != "structtest":
        fail("dpkg-deb -I: package {!r} version {!r}, expected structtest {}".format(
            fields.get("Package"), fields.get("Version"), VERSION))
    depends = [d.strip().split(" ")[0] for d in fields.get("Depends", "").split(",")]
    for needed in ("libc6", "libstdc++6", "libcurl4", "python3"):
        if needed not in depends:
            fail("dpkg-deb -I: Depends lacks {}: {}".format(needed, fields.get("Depends")))
    if any(d.endswith("-dev") for d in depends):
        fail("dpkg-deb -I: Depends names a -dev package: {}".format(fields.get("Depends")))
    print("Depends: " + fields["Depends"])

    listing, _ = run(["dpkg-deb", "-c", deb])
    files = []
    for line in listing.splitlines():
        mode, path = line.split()[0], line.split(" -> ")[0].split()[-1]
        if mode.startswith("d"):
            continue
        path = path[2:] if path.startswith("./") else path
        if not any(re.fullmatch(p, path) for p in ALLOWED):
            fail("dpkg-deb -c lists {}, which is not structtest's".format(path))
        files.append(path)
    for needed in REQUIRED:
        if needed not in files:
            fail("dpkg-deb -c: no {}".format(needed))

    root = os.path.join(WORK, "root")
    _, took_x = run(["dpkg-deb", "-x", deb, root])
    away = os.path.join(WORK, "elsewhere")
    os.makedirs(away)
    binary = os.path.join(root, "usr", "bin", "structtest")
    out, _ = run([binary, "--version"], cwd=away, env=env)
    if not out.startswith("structtest " + VERSION):
        fail("structtest --version printed {!r}".format(out[:80]))
    out, took_run = run([binary, "run", "--tasks", "code,summarization", "--limit", "2"],
                        cwd=away, env=env)
    if "oracle" not in out or "100.0" not in out:
        fail("the extracted binary's run printed no oracle table at 100%:\n" + out)
    print("dpkg-deb -x in {:.2f} s; the extracted binary ran the built-in responders over code "
          "and summarization in {:.2f} s".format(took_x, took_run))
    # The worker's files where the binary and the module look for them: both there,
    # and the worker starts.
    out, _ = run(["/usr/bin/python3", WORKER_CHECK, "/usr/bin/python3",
                  os.path.join(root, "usr", "share", "structtest"),
                  os.path.join(root, "usr", "lib", "python3", "dist-packages", "structtest")],
                 cwd=away, env=env)
    print(out.strip())
    out, _ = run(["/usr/bin/python3", CHECK, root, VERSION], cwd=away,
                 env=dict(env, PYTHONPATH=os.path.join(root, "usr", "lib", "python3", "dist-packages")))
    print(out.strip())
    shutil.rmtree(WORK)
    print("deb_test: passed")


if __name__ == "__main__":
    main()
