"""Verifies a Pass Cloud webhook delivery with Python 3 and the standard library only.

    from verify_webhook import verify
    ok = verify(secret, headers["passcloud-signature"], headers["passcloud-timestamp"], raw_body)

`raw_body` is the request body exactly as received (bytes, or str encoded as UTF-8), before any
JSON parser has seen it. As a command: a JSON object {secret, signature, timestamp, body, now?}
on standard input; prints `valid` (exit status 0) or `invalid` (exit status 1).
"""

import hashlib
import hmac
import json
import re
import sys
import time

# Deliveries signed further than this from the receiver's clock are refused.
TOLERANCE_SECONDS = 300

_HEX_SIGNATURE = re.compile(r"[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"[0-9]{1,12}")


def verify(secret, signature_header, timestamp_header, raw_body, now=None):
    if not isinstance(signature_header, str) or not isinstance(timestamp_header, str):
        return False
    if not _TIMESTAMP.fullmatch(timestamp_header):
        return False
    if now is None:
        now = int(time.time())
    if abs(now - int(timestamp_header)) > TOLERANCE_SECONDS:
        return False
    if isinstance(raw_body, str):
        raw_body = raw_body.encode("utf-8")
    signed = timestamp_header.encode("ascii") + b"." + raw_body
    expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    valid = False
    for entry in signature_header.split(","):
        scheme, _, given = entry.strip().partition("=")
        if scheme != "v1" or not _HEX_SIGNATURE.fullmatch(given):
            continue
        # Every entry is compared, in constant time, so the answer's timing says nothing about which matched.
        if hmac.compare_digest(given, expected):
            valid = True
    return valid


def main():
    args = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    ok = verify(args["secret"], args["signature"], args["timestamp"], args["body"], args.get("now"))
    print("valid" if ok else "invalid")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
