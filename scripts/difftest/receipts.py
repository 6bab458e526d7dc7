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

StoreKit 1 transaction receipts (`extract_transaction_id_from_transaction_receipt`): Apple's
fixture and property lists of the shapes StoreKit 1 wrote (tabs or spaces, members in any
order, the signature and environment around purchase-info), each read by Apple's library and
by jwsinspect: the same transaction ID, jwsinspect's status `unverifiable` (exit 10), and
`unverified` (exit 0) under --no-verify; one without purchase-info: Apple finds no ID,
jwsinspect refuses it (exit 5).
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
    more_checks, more_failures = transaction_receipts(binary)
    return checks + more_checks, failures + more_failures


def plist(members, indent="\t"):
    """An OpenStep property list as StoreKit 1 wrote one."""
    return "{\n" + "".join(f'{indent}"{key}" = "{value}";\n' for key, value in members) + "}"


def transaction_receipts(binary):
    checks, failures = 0, []
    utility = ReceiptUtility()
    fixture = open(os.path.join(HERE, "..", "..", "Tests", "Vectors", "apple", "legacyTransaction")).read().strip()
    inputs = [("apple-legacyTransaction", fixture)]
    rng = random.Random(52)
    for index in range(12):
        transaction = str(rng.randrange(10**14, 10**16))
        purchase = [("original-purchase-date-ms", "1386133040000"), ("transaction-id", transaction),
                    ("product-id", f"com.example.product{index}"), ("quantity", "1"),
                    ("purchase-date-ms", str(1386133040000 + index)), ("bid", "com.example.app")]
        rng.shuffle(purchase)
        info = base64.b64encode(plist(purchase, rng.choice(["\t", "    "])).encode()).decode()
        outer = [("signature", base64.b64encode(bytes(rng.randrange(256) for _ in range(128))).decode()),
                 ("purchase-info", info), ("environment", "Sandbox"), ("pod", "100"), ("signing-status", "0")]
        rng.shuffle(outer)
        inputs.append((f"generated-{index}", base64.b64encode(plist(outer).encode()).decode()))
    for name, text in inputs:
        apple_id = utility.extract_transaction_id_from_transaction_receipt(text)
        checks += 1
        status, records = jwsinspect_json(binary, text.encode())
        shown = records[0].get("payload", {}).get("transaction-id") if len(records) == 1 else None
        if apple_id is None or shown != apple_id or status != 0 or records[0].get("status") != "unverified":
            failures.append(f"{name}: Apple's library extracts {apple_id!r}; jwsinspect --no-verify exit {status}, "
                            f"transaction-id {shown!r}")
        checks += 1
        result = subprocess.run([binary, "--format", "jsonl", "-"], input=text.encode(), capture_output=True)
        verdicts = [json.loads(line).get("status") for line in result.stdout.decode().splitlines() if line.strip()]
        if result.returncode != 10 or verdicts != ["unverifiable"]:
            failures.append(f"{name}: jwsinspect exit {result.returncode}, {verdicts}, expected unverifiable (10)")
    # No purchase-info: Apple's library finds no transaction ID; jwsinspect refuses it.
    checks += 1
    text = base64.b64encode(plist([("signature", "AAAA"), ("environment", "Sandbox")]).encode()).decode()
    apple_id = utility.extract_transaction_id_from_transaction_receipt(text)
    status, _ = jwsinspect_json(binary, text.encode())
    if apple_id is not None or status != 5:
        failures.append(f"no purchase-info: Apple's library extracts {apple_id!r}, jwsinspect exit {status}")
    return checks, failures
