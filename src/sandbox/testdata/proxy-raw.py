# Sends raw bytes to the egress proxy inside a network-granted command (127.0.0.1:3128) and prints what comes
# back, so a red-team row can send what curl never would. argv[1]: the request, with \r \n \xNN escapes, AUTH
# replaced by this command's proxy credential (base64 of user:password from HTTP_PROXY). argv[2]: seconds to
# wait for more bytes after the last (default 3). argv[3]: how many times to send the request on the one
# connection (pipelined; default 1). It stops early once every request has a complete answer (a status line,
# headers and a content-length body) or the proxy closes. Copied into the workspace by network-redteam.test.ts.
import base64
import os
import re
import socket
import sys
import urllib.parse

proxy = urllib.parse.urlparse(os.environ["HTTP_PROXY"])
auth = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
request = sys.argv[1].replace("AUTH", auth).encode().decode("unicode_escape").encode("latin1")
sock = socket.create_connection(("127.0.0.1", 3128))
times = int(sys.argv[3]) if len(sys.argv) > 3 else 1
sock.sendall(request * times)
expected = times * max(1, len(re.findall(rb"(?m)^[A-Z]+ \S+ HTTP/1\.[01]\r$", request)))


def answered(data):
    """How many complete answers with a content-length are in data."""
    count, at = 0, 0
    while True:
        end = data.find(b"\r\n\r\n", at)
        if end < 0:
            return count
        length = re.search(rb"(?im)^content-length:\s*(\d+)", data[at:end])
        if not length:
            return count
        at = end + 4 + int(length.group(1))
        if at > len(data):
            return count
        count += 1


sock.settimeout(float(sys.argv[2]) if len(sys.argv) > 2 else 3)
received = b""
try:
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
        if answered(received) >= expected:
            break
except socket.timeout:
    pass
print(received.decode("latin1"))
