"""`jwsinspect --check-revocation` against Apple's SignedDataVerifier with online checks on.

A test CA minted with `mint ca --ocsp-url` (the leaf's responder and the intermediate's), two
`openssl ocsp` responders on loopback ports for it, and a minted transaction. Apple's verifier
(`enable_online_checks=True`, the CA's root as its only root) and jwsinspect must agree:

- both responders answer good: Apple accepts, jwsinspect exits 0 with a passed `revocation`;
- the leaf revoked (its responder restarted on an index saying so): Apple refuses
  (VERIFICATION_FAILURE), jwsinspect exits 2 (invalid-chain);
- the responders gone: Apple refuses as RETRYABLE_VERIFICATION_FAILURE, jwsinspect exits 75
  (revocation-unavailable).

run(binary) returns (checks made, failures as one line each).
"""
import json
import os
import socket
import subprocess
import tempfile

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

BUNDLE = "com.example.difftest"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(folder, index, port, ca, signer, key):
    """An `openssl ocsp` responder, as the CA folder's README runs it, naming its signer by key hash
    (as Apple's responders do: Apple's Python library compares a by-name responder ID, an
    x509.Name, with a string, and so never finds such a signer); waits until it listens."""
    # It says "ACCEPT [::]:PORT PID=…" once it listens (a probe connection would hold it up).
    process = subprocess.Popen(
        ["openssl", "ocsp", "-index", index, "-port", str(port), "-CA", ca, "-rsigner", signer, "-rkey", key,
         "-ndays", "1", "-resp_key_id"], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = process.stdout.readline()
    if not line.startswith("ACCEPT "):
        process.kill()
        raise RuntimeError(f"openssl ocsp did not listen on {port}: {line.strip()}")
    return process


def apple(root, token):
    """None when Apple's verifier (online checks on) accepts, else its status name."""
    verifier = SignedDataVerifier([root], True, Environment.SANDBOX, BUNDLE, None)
    try:
        verifier.verify_and_decode_signed_transaction(token)
        return None
    except VerificationException as e:
        return e.status.name


def ours(binary, folder, token_path):
    """jwsinspect's exit status and its `revocation` check (None when it made none)."""
    result = subprocess.run(
        [binary, "--root", os.path.join(folder, "root.der"), "--check-revocation", "--timeout", "2",
         "--format", "jsonl", token_path], capture_output=True, text=True)
    check = None
    for line in result.stdout.splitlines():
        record = json.loads(line)
        check = next((c for c in record.get("checks", []) if c["name"] == "revocation"), check)
    return result.returncode, check


def run(binary):
    checks, failures = 0, []
    with tempfile.TemporaryDirectory() as work:
        folder = os.path.join(work, "ca")
        leaf_port, intermediate_port = free_port(), free_port()
        while intermediate_port == leaf_port:
            intermediate_port = free_port()
        subprocess.run(
            [binary, "mint", "ca", "--out", folder, "--ocsp-url", f"http://127.0.0.1:{leaf_port}/",
             "--intermediate-ocsp-url", f"http://127.0.0.1:{intermediate_port}/"], check=True,
            capture_output=True)
        token = subprocess.run([binary, "mint", "transaction", "--ca", folder, "--bundle-id", BUNDLE],
                               check=True, capture_output=True, text=True).stdout.strip()
        token_path = os.path.join(work, "token.jws")
        with open(token_path, "w") as f:
            f.write(token + "\n")
        with open(os.path.join(folder, "root.der"), "rb") as f:
            root = f.read()
        leaf_args = ("ocsp-leaf-index.txt", leaf_port, "intermediate.der", "intermediate.der", "intermediate-key.p8")
        responders = [
            start(folder, *leaf_args),
            start(folder, "ocsp-intermediate-index.txt", intermediate_port, "root.der", "root.der", "root-key.p8"),
        ]
        try:
            # Good.
            checks += 1
            verdict, (status, check) = apple(root, token), ours(binary, folder, token_path)
            if verdict is not None or status != 0 or not (check and check["passed"]):
                failures.append(f"good: Apple {verdict or 'accepts'}, jwsinspect exit {status}, check {check}")
            # The leaf revoked.
            responders[0].kill()
            responders[0].wait()
            index = os.path.join(folder, "ocsp-leaf-index.txt")
            with open(index) as f:
                line = f.read()
            with open(index, "w") as f:
                f.write(line.replace("V\t391231235959Z\t\t", "R\t391231235959Z\t261201000000Z,keyCompromise\t", 1))
            responders[0] = start(folder, *leaf_args)
            checks += 1
            verdict, (status, check) = apple(root, token), ours(binary, folder, token_path)
            if verdict != "VERIFICATION_FAILURE" or status != 2 or not (check and not check["passed"]):
                failures.append(f"revoked leaf: Apple {verdict or 'accepts'}, jwsinspect exit {status}, check {check}")
        finally:
            for responder in responders:
                responder.kill()
                responder.wait()
        # Gone.
        checks += 1
        verdict, (status, check) = apple(root, token), ours(binary, folder, token_path)
        if verdict != "RETRYABLE_VERIFICATION_FAILURE" or status != 75:
            failures.append(f"responders gone: Apple {verdict or 'accepts'}, jwsinspect exit {status}, check {check}")
    return checks, failures
