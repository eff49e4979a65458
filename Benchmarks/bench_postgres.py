"""A private PostgreSQL 15 for the benchmarks (bench.py, serve_bench.py)."""
import os
import subprocess
import tempfile


def free_port():
    """A TCP port on 127.0.0.1 free at the moment."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(settings=""):
    """initdb + pg_ctl start in a temp dir on a private port (as the postgres
    user when run as root), with `settings` ("-c name=value ...") added;
    returns (url, stop) or None when not possible."""
    import shutil
    bin_dir = "/usr/lib/postgresql/15/bin"
    if not os.path.exists(f"{bin_dir}/initdb"):
        return None
    port = free_port()
    d = tempfile.mkdtemp(prefix="cql-bench-pg-")
    as_pg = ["/usr/sbin/runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    if os.getuid() == 0:
        shutil.chown(d, "postgres", "postgres")
    opts = f"-p {port} -k {d} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off {settings}"
    try:
        subprocess.run(as_pg + [f"{bin_dir}/initdb", "-D", f"{d}/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
                                "--locale=C"], check=True, capture_output=True)
        subprocess.run(as_pg + [f"{bin_dir}/pg_ctl", "-D", f"{d}/data", "-l", f"{d}/log", "-o", opts, "-w", "-t", "60",
                                "start"], check=True, capture_output=True)
    except (subprocess.CalledProcessError, OSError) as e:
        print(f"  postgres: cannot start a private server ({e}); PostgreSQL rows skipped", flush=True)
        return None

    def stop():
        subprocess.run(as_pg + [f"{bin_dir}/pg_ctl", "-D", f"{d}/data", "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(d, ignore_errors=True)
    # Where its postmaster.pid is (serve_bench.py counts PostgreSQL's CPU time).
    stop.data_dir = f"{d}/data"
    return f"postgres://postgres@127.0.0.1:{port}/postgres", stop
