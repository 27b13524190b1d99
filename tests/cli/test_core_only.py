"""The CLI starts on an install with the core requirements only (requirements/core.txt): every area's
command module imports without the optional extras, and `spec list` runs. A light module (e.g.
fixtures/deploy/versions.py, which option checks use) once pulled requests and psutil in through its
package's __init__, so the whole CLI failed to start without the pulsar extra."""
import subprocess
import sys

CODE = r'''
import importlib, importlib.abc, sys
OPTIONAL = {"pulsar", "_pulsar", "fastavro", "requests", "kazoo", "psutil", "pyarrow", "testcontainers", "docker",
            "cryptography", "jinja2", "allure", "allure_pytest", "pyspark", "duckdb", "numpy", "matplotlib",
            "pytest", "_pytest", "pexpect"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in OPTIONAL:
            raise ModuleNotFoundError(f"blocked optional {name}")
sys.meta_path.insert(0, Block())
from pulsar_conformance.cli import AREA_CLIS, main
for module in AREA_CLIS:
    importlib.import_module(module)
sys.exit(main(["spec", "list"]))
'''


def test_the_cli_starts_without_the_optional_extras():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "client-failover" in done.stdout
