"""A Pass Cloud integration in Python 3 with the standard library only, written from docs/api.md
and the OpenAPI document (GET /v1/openapi.json).

With an API key (Settings > API keys; sections: employees, visitors, authorizations, pass records)
it lists the employees page by page, makes a visitor with a photo, lets the visitor through on a
terminal, and reads the terminal's pass records of today page by page. It prints what it did as
one JSON object.

    PASSCLOUD_URL=https://console.example.com PASSCLOUD_API_KEY=pck_... \\
        python3 sync_visitors.py --device <deviceKey> --photo visitor.png --name "Vic Visitor" --person-id V-1001
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# The longest wait a 429 may ask for before this script gives up (a key's window is a minute).
MAX_WAIT_SECONDS = 120


class ApiError(Exception):
    def __init__(self, status, envelope):
        super().__init__(f"{status} {envelope.get('message', '')}".strip())
        self.status = status
        self.envelope = envelope


class PassCloud:
    def __init__(self, base_url, api_key, locale="en_US"):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.locale = locale

    def call(self, method, path, body=None, query=None):
        """One call; answers `data` of the envelope. A 429 is waited out as its Retry-After says."""
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        payload = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Authorization": f"Bearer {self.api_key}", "Accept-Language": self.locale}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        while True:
            request = urllib.request.Request(url, data=payload, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request) as response:
                    return json.load(response)["data"]
            except urllib.error.HTTPError as error:
                envelope = json.load(error) if error.headers.get_content_type() == "application/json" else {}
                if error.code == 429:
                    wait = int(error.headers.get("Retry-After") or envelope.get("data", {}).get("retryAfterSeconds") or 1)
                    if wait > MAX_WAIT_SECONDS:
                        raise ApiError(error.code, envelope) from None
                    time.sleep(wait)
                    continue
                raise ApiError(error.code, envelope) from None

    def pages(self, path, query=None):
        """Every item of a list, following `nextCursor` until it is null, 100 at a time (a size every list takes)."""
        cursor = None
        while True:
            page = self.call("GET", path, query={**(query or {}), "pageSize": 100, "cursor": cursor})
            yield from page["items"]
            cursor = page.get("nextCursor")
            if not cursor:
                return


def upload_photo(api, path):
    """A photo goes to storage through a presigned upload; answers the fileKey a person's `avatar` takes."""
    with open(path, "rb") as f:
        photo = f.read()
    presigned = api.call(
        "POST",
        "/v1/files/uploads/presign",
        {"kind": "avatar", "filename": os.path.basename(path), "size": len(photo), "contentType": "image/png"},
    )
    upload = presigned["upload"]
    request = urllib.request.Request(upload["url"], data=photo, method=upload["method"], headers=upload["headers"])
    with urllib.request.urlopen(request) as response:
        if response.status >= 300:
            raise RuntimeError(f"photo upload answered {response.status}")
    stored = api.call("POST", f"/v1/files/uploads/{presigned['uploadKey']}/complete")
    return stored["fileKey"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", required=True, help="the terminal's deviceKey")
    parser.add_argument("--photo", required=True, help="a PNG of the visitor's face")
    parser.add_argument("--name", required=True)
    parser.add_argument("--person-id", required=True)
    args = parser.parse_args()
    api = PassCloud(os.environ["PASSCLOUD_URL"], os.environ["PASSCLOUD_API_KEY"])

    employees = sum(1 for _ in api.pages("/v1/employees"))
    group = api.call("GET", "/v1/groups", query={"type": "visitor"})["items"][0]
    avatar = upload_photo(api, args.photo)
    visitor = api.call(
        "POST",
        "/v1/visitors",
        {"personId": args.person_id, "name": args.name, "role": "Visitor", "gender": "female", "groupKey": group["groupKey"], "avatar": avatar},
    )
    granted = api.call(
        "POST",
        "/v1/authorities",
        {"setType": 0, "personKeys": [visitor["visitorKey"]], "deviceKeys": [args.device], "validity": {"permanent": True}},
    )
    records = sum(1 for _ in api.pages("/v1/passRecords", {"deviceKey": args.device}))
    json.dump(
        {"employees": employees, "visitorKey": visitor["visitorKey"], "version": visitor["version"], "authorities": granted["authorities"], "passRecords": records},
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    try:
        main()
    except ApiError as error:
        issues = error.envelope.get("data", {}) or {}
        print(f"Pass Cloud answered {error}: {json.dumps(issues)}", file=sys.stderr)
        sys.exit(1)
