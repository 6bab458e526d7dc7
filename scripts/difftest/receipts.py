"""Legacy receipts: jwsinspect's decoding against an independent ASN.1 decoder and Apple's library.

Apple's app-store-server-library reads receipts only to pull out a transaction ID
(`ReceiptUtility.extract_transaction_id_from_app_receipt`, no signature check). This compares,
for every real receipt in Tests/Vectors/receipts:

- every attribute of the receipt and of each in-app entry, decoded by python-asn1 (the decoder
  Apple's library uses), with jwsinspect's JSON `payload` (verifyReceipt's names, strings and
  integers as held, opaque_value and sha1_hash in base64, unknown types in hex);
- Apple's extracted transaction ID with the first in-app entry jwsinspect shows (None when it
  shows none);

and, for inputs that start like a receipt and are not one, that Apple's library refuses them
(ValueError) and jwsinspect answers exit 5 (malformed).
"""
import base64
import glob
import json
import os
import random
import subprocess

import asn1
from appstoreserverlibrary.receipt_utility import ReceiptUtility

HERE = os.path.dirname(os.path.abspath(__file__))
RECEIPTS = os.path.join(HERE, "..", "..", "Tests", "Vectors", "receipts")

RECEIPT_NAMES = {0: "receipt_type", 2: "bundle_id", 3: "application_version", 4: "opaque_value", 5: "sha1_hash",
                 12: "receipt_creation_date", 19: "original_application_version", 21: "expiration_date"}
IN_APP_NAMES = {1701: "quantity", 1702: "product_id", 1703: "transaction_id", 1704: "purchase_date",
                1705: "original_transaction_id", 1706: "original_purchase_date", 1708: "expires_date",
                1711: "web_order_line_item_id", 1712: "cancellation_date", 1713: "is_trial_period",
                1719: "is_in_intro_offer_period", 1721: "promotional_offer_id"}
BASE64 = {4, 5}


def read(octets):
    decoder = asn1.Decoder()
    decoder.start(octets)
    return decoder.read()[1]


def content(der):
    """The receipt's SET, found the way Apple's ReceiptUtility finds it."""
    value = read(der)[1][0][2][1][0]
    return read(value)


def expected_value(kind, octets, names):
    """What jwsinspect should show for one attribute, by python-asn1."""
    if kind not in names:
        return octets.hex()
    if kind in BASE64:
        return base64.b64encode(octets).decode()
    try:
        decoder = asn1.Decoder()
        decoder.start(octets)
        tag, value = decoder.read()
        if decoder.eof() and tag.nr in (asn1.Numbers.UTF8String, asn1.Numbers.IA5String):
            return value if isinstance(value, str) else value.decode()
        if decoder.eof() and tag.nr == asn1.Numbers.Integer and -2**63 <= value < 2**63:
            return value
    except Exception:
        pass
    return octets.hex()


def expected_members(attributes, names, skip=()):
    grouped = {}
    for kind, _version, octets in attributes:
        if kind in skip:
            continue
        key = names.get(kind, f"unknown_{kind}")
        grouped.setdefault(key, []).append(expected_value(kind, octets, names))
    return {key: values[0] if len(values) == 1 else values for key, values in grouped.items()}


def jwsinspect_json(binary, data):
    result = subprocess.run([binary, "--format", "jsonl", "--no-verify", "-"], input=data, capture_output=True)
    lines = [json.loads(line) for line in result.stdout.decode().splitlines() if line.strip()]
    return result.returncode, lines


def run(binary):
    checks, failures = 0, []
    utility = ReceiptUtility()
    for path in sorted(glob.glob(os.path.join(RECEIPTS, "*.der"))):
        name = os.path.basename(path)
        der = open(path, "rb").read()
        status, records = jwsinspect_json(binary, der)
        checks += 1
        if status != 0 or len(records) != 1 or records[0].get("type") != "receipt":
            failures.append(f"{name}: jwsinspect exit {status}, {len(records)} records")
            continue
        payload = records[0]["payload"]
        attributes = content(der)
        expected = expected_members(attributes, RECEIPT_NAMES, skip=(17,))
        expected["in_app"] = [expected_members(read(octets), IN_APP_NAMES)
                              for kind, _version, octets in attributes if kind == 17]
        checks += 1
        if payload != expected:
            differing = sorted(k for k in set(payload) | set(expected) if payload.get(k) != expected.get(k))
            failures.append(f"{name}: payload differs from python-asn1's decoding in {differing[:5]}")
        apple_id = utility.extract_transaction_id_from_app_receipt(base64.b64encode(der).decode())
        first = payload["in_app"][0] if payload["in_app"] else None
        checks += 1
        if (apple_id is None) != (first is None) or (
                first is not None and apple_id not in (first.get("transaction_id"), first.get("original_transaction_id"))):
            failures.append(f"{name}: Apple's library extracts {apple_id!r}, jwsinspect's first in-app entry is {first!r}")
    # Inputs that start like a receipt and are not one: both refuse.
    rng = random.Random(15)
    sample = open(os.path.join(RECEIPTS, "36-prod-getpure-2024-g5.der"), "rb").read()
    broken = [sample[:40], sample[:len(sample) // 2], sample[:19] + bytes(rng.randrange(256) for _ in range(400))]
    for index, data in enumerate(broken):
        checks += 1
        try:
            utility.extract_transaction_id_from_app_receipt(base64.b64encode(data).decode())
            apple_refuses = False
        except ValueError:
            apple_refuses = True
        status, _ = jwsinspect_json(binary, data)
        if not apple_refuses or status != 5:
            failures.append(f"broken receipt {index}: Apple's library refuses: {apple_refuses}, jwsinspect exit {status}")
    return checks, failures
