"""A client of GIMP's Script-Fu server (plug-in-script-fu-server), for tests that drive a
running GIMP with the GUI: each command is sent as 'G', a 16-bit big-endian length and the
Script-Fu text; the reply is 'G', an error byte, a 16-bit length and the printed result.

Usage: sfclient.py PORT wait SECONDS     (waits until the server accepts connections)
       sfclient.py PORT run SCRIPT        (prints the reply; exit 1 when it is an error)
"""
import socket
import struct
import sys
import time


def recv_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the Script-Fu server closed the connection")
        data += chunk
    return data


def run(port, script, timeout=300.0):
    """(error, text) of one command."""
    body = script.encode()
    if len(body) > 0xFFFF:
        raise ValueError("a Script-Fu command is at most 65535 bytes")
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(b"G" + struct.pack(">H", len(body)) + body)
        magic, error, length = struct.unpack(">cBH", recv_exactly(sock, 4))
        if magic != b"G":
            raise ConnectionError(f"not a Script-Fu server reply: {magic!r}")
        return error != 0, recv_exactly(sock, length).decode(errors="replace")


def wait(port, seconds):
    end = time.monotonic() + seconds
    while True:
        try:
            error, _ = run(port, "(gimp-version)", timeout=10.0)
            return not error
        except OSError:
            if time.monotonic() > end:
                return False
            time.sleep(0.3)


def main():
    port, what, arg = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    if what == "wait":
        sys.exit(0 if wait(port, float(arg)) else 1)
    error, text = run(port, arg)
    print(text)
    sys.exit(1 if error else 0)


if __name__ == "__main__":
    main()
