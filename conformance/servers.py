"""The server processes: ports, the server's environment, starting a
server and waiting until it answers, stopping its process group."""

import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import time

DEFAULT_PORT_RANGE = '18100-18199'


def parse_port_range(text):
    """"18100-18199" (inclusive) -> list of ports."""
    try:
        lo, hi = (int(x) for x in text.strip().split('-', 1))
    except ValueError:
        raise SystemExit('CONFORMANCE_PORT_RANGE must look like 18100-18199, '
                         'not %r' % text)
    if not (1024 <= lo <= hi <= 65535) or hi - lo < 2:
        raise SystemExit('CONFORMANCE_PORT_RANGE %r: need at least 3 ports '
                         'within 1024-65535' % text)
    return list(range(lo, hi + 1))


PORTS = parse_port_range(os.environ.get('CONFORMANCE_PORT_RANGE')
                         or DEFAULT_PORT_RANGE)


def port_is_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(('127.0.0.1', port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def listener_in_group(port, pgid):
    """Whether a process of process group ``pgid`` holds the socket that
    listens on TCP ``port`` (Linux /proc); None where that cannot be
    told."""
    inodes = set()
    readable = False
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(table) as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for row in rows:
            cols = row.split()
            if len(cols) < 10 or cols[3] != '0A':  # 0A: LISTEN
                continue
            try:
                if int(cols[1].rsplit(':', 1)[1], 16) == port:
                    inodes.add('socket:[%s]' % cols[9])
            except ValueError:
                continue
    if not readable:
        return None
    if not inodes:
        return False
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) != pgid:
                continue
            fd_dir = '/proc/%s/fd' % entry
            for fd in os.listdir(fd_dir):
                if os.readlink(os.path.join(fd_dir, fd)) in inodes:
                    return True
        except OSError:
            continue
    return False


def clean_env(extra, runtime_dir):
    """The server's environment: ours, less anything that could configure
    the server behind the runner's back, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OS_', 'PLACEMENT_', 'DATABASE_URL',
                                'DJANGO_SETTINGS_MODULE'))}
    for k in ('http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY',
              'all_proxy', 'ALL_PROXY'):
        env.pop(k, None)
    # gunicorn >= 25 opens a control socket under $XDG_RUNTIME_DIR (else
    # ~/.gunicorn/gunicorn.ctl, shared by every gunicorn on the machine).
    env['XDG_RUNTIME_DIR'] = runtime_dir
    env.update(extra)
    return env


def log_header(cmd):
    """The command line, cwd and contract environment, for the log."""
    lines = ['$ %s' % ' '.join(cmd.argv)]
    if cmd.cwd:
        lines.append('# cwd: %s' % cmd.cwd)
    for key in sorted(cmd.env):
        lines.append('# env: %s=%s' % (key, cmd.env[key]))
    return ('\n'.join(lines) + '\n').encode()


def run_command(cmd, log_path, timeout=300):
    runtime_dir = tempfile.mkdtemp(prefix='conf-rt-')
    try:
        with open(log_path, 'ab') as log:
            log.write(log_header(cmd))
            log.flush()
            proc = subprocess.run(cmd.argv,
                                  env=clean_env(cmd.env, runtime_dir),
                                  cwd=cmd.cwd, stdout=log,
                                  stderr=subprocess.STDOUT, timeout=timeout)
    finally:
        shutil.rmtree(runtime_dir, ignore_errors=True)
    if proc.returncode != 0:
        raise RuntimeError('command failed (rc=%s): %s; see %s'
                           % (proc.returncode, ' '.join(cmd.argv), log_path))


class Server(object):

    def __init__(self, cmd, port, log_path, start_timeout, pid_file=None,
                 stop_signal=signal.SIGTERM):
        self.pid_file = pid_file
        self.stop_signal = stop_signal
        self.cmd = cmd
        self.port = port
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.proc = None
        self.runtime_dir = tempfile.mkdtemp(prefix='conf-rt-')

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def start(self):
        self.log = open(self.log_path, 'ab')
        self.log.write(log_header(self.cmd))
        self.log.flush()
        self.proc = subprocess.Popen(
            self.cmd.argv, env=clean_env(self.cmd.env, self.runtime_dir),
            cwd=self.cmd.cwd, stdout=self.log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        if self.pid_file:
            with open(self.pid_file, 'w') as fh:
                fh.write(str(self.proc.pid))
        self.wait_ready()

    def wait_ready(self):
        import httpx
        deadline = time.time() + self.start_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('server exited early (rc=%s); see %s'
                                   % (self.proc.returncode, self.log_path))
            try:
                httpx.get(self.url + '/', timeout=5, trust_env=False)
            except httpx.HTTPError:
                time.sleep(0.1)
                continue
            # Something answers; make sure it is our server and not another
            # process that took the port after it was probed free.
            if listener_in_group(self.port, self.proc.pid) is not False:
                return
            time.sleep(0.2)
        raise RuntimeError('server not answering on %s after %ss; see %s'
                           % (self.url, self.start_timeout, self.log_path))

    def _exited(self):
        """True once the leader has exited, *without reaping it*: while it
        is an unreaped zombie its pid, hence our process-group id, cannot be
        reused by anything else, so signalling the group stays safe."""
        if self.proc.returncode is not None:
            return True
        return os.waitid(os.P_PID, self.proc.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def stop(self, timeout=15):
        if self.proc is None:
            return
        pgid = self.proc.pid  # start_new_session: the group id is its pid
        if self.proc.returncode is None:
            try:
                os.killpg(pgid, self.stop_signal)
            except ProcessLookupError:
                pass
            deadline = time.time() + timeout
            while not self._exited() and time.time() < deadline:
                time.sleep(0.05)
            # Leader exited (not yet reaped) or timed out: kill whatever is
            # left of the group (e.g. a worker that outlived its master).
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.proc = None
        self.log.close()
        shutil.rmtree(self.runtime_dir, ignore_errors=True)


def kill_group_members(pgid, marker=None):
    """SIGKILL each process whose process group is ``pgid`` (and, if given,
    whose command line contains ``marker``)."""
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            if os.getpgid(pid) != pgid:
                continue
            with open('/proc/%d/cmdline' % pid, 'rb') as fh:
                cmdline = fh.read().replace(b'\0', b' ').decode('utf-8',
                                                               'replace')
            if marker and marker not in cmdline:
                continue
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError):
            continue


class PortPool(object):

    def __init__(self, ports):
        self.q = queue.Queue()
        for p in ports:
            self.q.put(p)

    def get(self):
        # Skip ports something else is listening on.
        for _ in range(len(PORTS) * 2):
            port = self.q.get()
            if port_is_free(port):
                return port
            self.q.put(port)
        raise RuntimeError('no free port in %s-%s (CONFORMANCE_PORT_RANGE)'
                           % (PORTS[0], PORTS[-1]))

    def put(self, port):
        self.q.put(port)


def parse_server_env(items):
    """["KEY=VALUE", ...] (--server-env) -> dict."""
    env = {}
    for item in items or []:
        key, sep, value = item.partition('=')
        if not sep or not key:
            raise SystemExit('--server-env wants KEY=VALUE, not %r' % item)
        env[key] = value
    return env
