"""The run folder: one writer at a time (a lock file), overwrite and resume rules, metrics that never go back.

* ``<run>/lock`` holds the writer's pid and hostname (JSON), and on Linux the
  process's start time, so that a pid reused by another process after the
  writer died is not mistaken for the writer. A second writer
  (``--overwrite`` or ``--resume`` while the run is alive) is refused with a
  :class:`RunFolderError` naming the holder. A lock whose pid is no longer
  alive on this host (the writer was killed) is stale and taken over. A lock
  from another host cannot be checked, so it is refused: remove it by hand
  once that writer is known to be gone.
* :func:`trim_metrics` cuts ``metrics.csv`` back to a checkpoint's update, so
  a resumed run never logs an update (or ``learner_decisions``) twice; the
  TensorBoard writer is opened with ``purge_step`` for the same reason.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import shutil
import socket
from pathlib import Path
from typing import Any

LOCK_NAME = "lock"
CHECKPOINT = Path("checkpoints") / "last.pt"


class RunFolderError(SystemExit):
    """The run folder cannot be used as asked (exists, locked, no checkpoint); exits with the message."""


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot, from /proc), or None where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # the name in parentheses may hold spaces
    return int(fields[19]) if len(fields) > 19 else None  # field 22 of proc(5), counted after the name


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True


class RunLock:
    """The run folder's lock file (see the module docstring); a context manager that releases it."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / LOCK_NAME
        self.held = False

    def holder(self) -> dict[str, Any] | None:
        """The lock's content (pid, hostname), or None when there is no lock; unreadable content counts as stale."""
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {"pid": -1, "hostname": socket.gethostname()}
        return data if isinstance(data, dict) else {"pid": -1, "hostname": socket.gethostname()}

    def refusal(self) -> str | None:
        """Why the folder is in use by another live writer, or None when it is free (or the lock is stale)."""
        holder = self.holder()
        if holder is None:
            return None
        pid, host = int(holder.get("pid", -1)), str(holder.get("hostname", ""))
        if host != socket.gethostname():
            return (
                f"run folder {self.path.parent} is locked by pid {pid} on host {host!r} ({self.path}); "
                f"remove the lock file if that run is gone"
            )
        started = holder.get("started")
        same_process = started is None or start_time(pid) in (None, started)
        if pid == os.getpid() or (pid_alive(pid) and same_process):
            return f"run folder {self.path.parent} is in use by a running training process (pid {pid}, {self.path})"
        return None

    def acquire(self) -> None:
        """Take the lock, taking over a stale one; raise RunFolderError when another live writer holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        content = json.dumps({"pid": os.getpid(), "hostname": socket.gethostname(), "started": start_time(os.getpid())})
        for _attempt in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                reason = self.refusal()
                if reason:
                    raise RunFolderError(reason) from None
                print(f"taking over a stale lock ({self.holder()}): its process is gone")
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(content)
            self.held = True
            return
        raise RunFolderError(f"could not take the lock {self.path}: another writer raced for it")

    def release(self) -> None:
        """Remove the lock if this process holds it."""
        if self.held:
            try:
                self.path.unlink()
            except OSError as exc:
                if exc.errno != errno.ENOENT:
                    raise
            self.held = False

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def check_folder(folder: Path, resume: bool, overwrite: bool) -> None:
    """Refuse (RunFolderError) a run folder that cannot be used as asked; writes nothing."""
    if folder.exists() and not resume and not overwrite:
        raise RunFolderError(f"run folder {folder} exists: pass --resume to continue it or --overwrite to start over")
    if resume and not (folder / CHECKPOINT).exists():
        raise RunFolderError(f"--resume: no checkpoint at {folder / CHECKPOINT}")
    reason = RunLock(folder).refusal()
    if reason:
        raise RunFolderError(reason)


def clear_folder(folder: Path) -> None:
    """Delete everything in the run folder but its lock (``--overwrite``)."""
    for entry in folder.iterdir():
        if entry.name == LOCK_NAME:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def trim_metrics(path: Path, last_update: int) -> int:
    """Drop the rows of ``metrics.csv`` after ``last_update`` (written after the checkpoint); return how many."""
    if not path.exists():
        return 0
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        fields = reader.fieldnames
        rows = list(reader)
    kept = [row for row in rows if int(row["update"]) <= last_update]
    if len(kept) == len(rows) or fields is None:
        return 0
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(kept)
    os.replace(tmp, path)
    return len(rows) - len(kept)
