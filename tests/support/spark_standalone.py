"""A Spark standalone master and one worker, started from the installed pyspark as separate processes
bound to loopback and stopped (process group killed) whatever the outcome; afterwards no Spark daemon
of theirs may be left. Shared by ``check-capture --master`` and ``certify --spark-master`` tests."""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "SPARK_LOCAL_IP": LOOPBACK, "SPARK_NO_DAEMONIZE": "1",
           "SPARK_HOME": str(spark_class().parent.parent)}
    handle = log.open("w")
    return subprocess.Popen([str(spark_class()), *args], stdout=handle, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def _wait_for(log: Path, text: str, process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError(f"'{text}' not seen in {log} within {timeout}s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)


@contextlib.contextmanager
def standalone(folder: Path, *, cores: int = 2, memory: str = "2g"):
    """Yield ``(url, master_log)`` of a running master with one registered worker."""
    port = free_port()
    master_log, worker_log = folder / "master.log", folder / "worker.log"
    started = []
    try:
        master = _start(["org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", str(port),
                         "--webui-port", str(free_port())], master_log)
        started.append(master)
        _wait_for(master_log, "I have been elected leader", master)
        url = f"spark://{LOOPBACK}:{port}"
        worker = _start(["org.apache.spark.deploy.worker.Worker", url, "--host", LOOPBACK, "--cores", str(cores),
                         "--memory", memory, "--webui-port", str(free_port()), "--work-dir", str(folder / "work")],
                        worker_log)
        started.append(worker)
        _wait_for(worker_log, "Successfully registered with master", worker)
        yield url, master_log
    finally:
        for process in reversed(started):
            _stop(process)
        leaked = subprocess.run(["pgrep", "-f", f"spark://{LOOPBACK}:{port}|--port {port}"],
                                capture_output=True, text=True).stdout.split()
        assert not leaked, f"Spark daemons still running: {leaked}"
