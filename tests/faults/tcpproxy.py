"""A loopback TCP proxy whose connections a test can cut, to play a database
restarting: ``sever()`` drops every open connection and refuses new ones
(connections are accepted and closed at once, as a server going down does),
``silence()`` plays a database that accepts connections and never answers
(a hung server, a stalled network path): open connections stop forwarding
either way and new ones are accepted and left waiting, and ``restore()``
lets them through again."""
import socket
import threading


class TCPProxy:
    def __init__(self, target_host, target_port, listen_port=0):
        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", listen_port))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open = set()
        self._down = False
        self._silent = False
        self._silent_after = None
        self._closing = False
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                down, silent = self._down, self._silent
            if down:
                client.close()
                continue
            if silent:
                # Accepted, and then nothing: what the client sends is read
                # and dropped, so that it waits for an answer that never comes.
                with self._lock:
                    self._open.add(client)
                threading.Thread(target=self._pump, args=(client, None), daemon=True).start()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, upstream))
                self.connections += 1
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                with self._lock:
                    if self._silent_after and self._silent_after in data:
                        self._silent = True
                    silent = self._silent
                if dst is not None and not silent:
                    dst.sendall(data)
        except OSError:
            pass
        finally:
            self._drop(src)
            if dst is not None:
                self._drop(dst)

    def _drop(self, sock):
        with self._lock:
            self._open.discard(sock)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def sever(self):
        with self._lock:
            self._down = True
            live = list(self._open)
        for sock in live:
            self._drop(sock)

    def silence(self):
        with self._lock:
            self._silent = True

    def silence_on(self, marker: bytes):
        """Go silent when a client sends ``marker`` (e.g. b"COMMIT"), which
        is swallowed: the database stops answering at that very message."""
        with self._lock:
            self._silent_after = marker

    def restore(self):
        """Forward again; connections opened while silent stay useless (their
        client sent its start-up messages into the void), so they are cut."""
        with self._lock:
            self._down = False
            was_silent, self._silent = self._silent, False
            self._silent_after = None
            live = list(self._open) if was_silent else []
        for sock in live:
            self._drop(sock)

    def close(self):
        self._closing = True
        self.sever()
        self._listener.close()
