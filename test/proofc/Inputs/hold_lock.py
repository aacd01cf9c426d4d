"""Holds the lock of a directory as a running proofc would, while a command runs.

  hold_lock.py LOCKFILE PID COMMAND...

Writes PID into LOCKFILE, takes flock(LOCK_EX) on it (DirectoryLock.h), runs
COMMAND and exits with its exit code: the command meets a directory in use.
"""
import fcntl
import subprocess
import sys

lock, pid, command = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(lock, "w") as f:
    f.write(pid + "\n")
    f.flush()
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    sys.exit(subprocess.run(command).returncode)
