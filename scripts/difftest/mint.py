"""`jwsinspect mint` against Apple's SignedDataVerifier (app-store-server-library).

Minted tokens (`mint ca`, then `mint KIND --ca`): in a temporary folder, a test CA and a token
of every kind (notifications of several types, their nested tokens included), Sandbox and
Production, each of which must be

- accepted by Apple's `SignedDataVerifier` given the CA's `root.der` as its only root (online
  checks off), with the method for its kind; a notification's nested `signedTransactionInfo`,
  `signedRenewalInfo` and `signedAppTransactionInfo` too, each with its own method (Apple's
  `verify_and_decode_notification` verifies only the outer token);
- refused by Apple's verifier given Apple's real roots (Certificates/*.cer) instead, and by
  jwsinspect without `--root` (exit 2): a minted CA is not Apple's;
- accepted by jwsinspect (`--root ca/root.der --bundle-id … --environment …`, exit 0), with
  the right `type` and every nested token valid.

The suite (`mint suite --ca ca --out suite`): for every case of its manifest.json, Apple's
verifier accepts the file iff `expect` is "valid" (a notification: the outer token and every
nested one), and jwsinspect answers its `exitCode`. Until `mint suite` exists (a usage error
naming the kinds), this part is skipped and counts nothing.

run(binary) returns (checks made, failures as one line each) and prints whether the suite ran.
"""
import glob
import json
import os
import subprocess
import tempfile

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

HERE = os.path.dirname(os.path.abspath(__file__))
APPLE_ROOTS = sorted(glob.glob(os.path.join(HERE, "..", "..", "Certificates", "*.cer")))
BUNDLE = "com.example.difftest"
APP_APPLE_ID = 1234567890  # the appAppleId mint puts in notifications, app transactions and realtime requests
ENVIRONMENTS = {"Sandbox": Environment.SANDBOX, "Production": Environment.PRODUCTION}

# mint's kind, as jwsinspect's JSON `type` names it: (Apple's verifier method, that `type`)
KINDS = {
    "transaction": ("verify_and_decode_signed_transaction", "transaction"),
    "renewalInfo": ("verify_and_decode_renewal_info", "renewalInfo"),
    "notification": ("verify_and_decode_notification", "notification"),
    "appTransaction": ("verify_and_decode_app_transaction", "appTransaction"),
    "realtimeRequest": ("verify_and_decode_realtime_request", "realtimeRequest"),
}
# (notification type, subtype or None for mint's default)
NOTIFICATIONS = [
    ("SUBSCRIBED", None), ("DID_RENEW", None), ("EXPIRED", None), ("REFUND", None),
    ("DID_CHANGE_RENEWAL_STATUS", None), ("TEST", None), ("ONE_TIME_CHARGE", None), ("RESCIND_CONSENT", None),
    ("RENEWAL_EXTENSION", "SUMMARY"), ("EXTERNAL_PURCHASE_TOKEN", None),
]
# A notification's nested signed members: (body, member) -> mint's kind.
NESTED = {
    ("data", "signedTransactionInfo"): "transaction",
    ("data", "signedRenewalInfo"): "renewalInfo",
    ("appData", "signedAppTransactionInfo"): "appTransaction",
}


def verifier(roots, environment, app_apple_id=None):
    """A fresh verifier: its chain cache is its own, so no verdict leaks from one root set to another."""
    return SignedDataVerifier(roots, False, ENVIRONMENTS[environment], BUNDLE, app_apple_id)


def apple_verify(make_verifier, kind, token):
    """None when Apple's verifier accepts the token (a notification: and every nested one), else why not."""
    try:
        decoded = getattr(make_verifier(), KINDS[kind][0])(token)
    except VerificationException as e:
        return f"{kind}: {e.status.name}" + (f" ({e.__cause__!r})" if e.__cause__ else "")
    except Exception as e:  # Apple's models raise other errors on payloads they cannot hold
        return f"{kind}: {e!r}"
    if kind != "notification":
        return None
    for (body, member), nested_kind in NESTED.items():
        nested = getattr(getattr(decoded, body, None) or object(), member, None)
        if nested is not None:
            error = apple_verify(make_verifier, nested_kind, nested)
            if error:
                return f"nested {body}.{member}: {error}"
    return None


def nested_members(payload):
    """The nested signed members a decoded notification payload holds, as "body.member"."""
    return [f"{body}.{member}" for (body, member) in NESTED if isinstance(payload.get(body), dict) and member in payload[body]]


def run(binary):
    checks, failures = 0, []

    def check(condition, what):
        nonlocal checks
        checks += 1
        if not condition:
            failures.append(what)
        return condition

    apple_roots = [open(path, "rb").read() for path in APPLE_ROOTS]
    check(len(apple_roots) >= 3, f"Apple's roots not found in Certificates/: {APPLE_ROOTS}")
    with tempfile.TemporaryDirectory() as folder:
        ca = os.path.join(folder, "ca")
        result = subprocess.run([binary, "mint", "ca", "--out", ca], capture_output=True, text=True)
        if not check(result.returncode == 0, f"mint ca: exit {result.returncode}: {result.stderr.strip()}"):
            return checks, failures
        root_path = os.path.join(ca, "root.der")
        root = open(root_path, "rb").read()

        def jwsinspect(path, environment, *extra):
            return subprocess.run([binary, "--root", root_path, "--bundle-id", BUNDLE, "--environment", environment,
                                   *extra, path], capture_output=True, text=True)

        # Minted tokens: (label, kind, environment, mint's arguments)
        minted = [(kind, kind, "Sandbox", []) for kind in KINDS if kind != "notification"]
        minted += [(f"notification {t}{'/' + s if s else ''}", "notification", "Sandbox",
                    ["--notification-type", t] + (["--notification-subtype", s] if s else [])) for t, s in NOTIFICATIONS]
        minted += [(f"{kind} Production", kind, "Production", []) for kind in KINDS]
        for number, (label, kind, environment, arguments) in enumerate(minted):
            result = subprocess.run([binary, "mint", kind, "--ca", ca, "--bundle-id", BUNDLE, "--environment", environment,
                                     *arguments, "--format", "json"], capture_output=True, text=True)
            if not check(result.returncode == 0, f"mint {label}: exit {result.returncode}: {result.stderr.strip()}"):
                continue
            minted_json = json.loads(result.stdout)
            token, payload = minted_json["jws"], minted_json["payload"]
            # Production needs the app's Apple ID: mint's, which the payload carries (a notification: in its body).
            app_apple_id = APP_APPLE_ID if environment == "Production" else None
            if environment == "Production" and kind in ("notification", "appTransaction", "realtimeRequest"):
                body = next((payload[b] for b in ("data", "summary", "appData", "externalPurchaseToken") if b in payload),
                            payload)
                check(body.get("appAppleId") == APP_APPLE_ID,
                      f"mint {label}: the payload's appAppleId is {body.get('appAppleId')!r}, not {APP_APPLE_ID}")
            error = apple_verify(lambda: verifier([root], environment, app_apple_id), kind, token)
            check(error is None, f"mint {label}: Apple's verifier refuses it under the CA's root: {error}")
            # Under Apple's roots: refused for its chain, the token and each nested one on its own.
            for what, what_kind, what_token in [(label, kind, token)] + [
                    (f"{label} nested {member}", NESTED[tuple(member.split("."))],
                     payload[member.split(".")[0]][member.split(".")[1]]) for member in nested_members(payload)]:
                error = apple_verify(lambda: verifier(apple_roots, environment, app_apple_id), what_kind, what_token)
                check(error is not None and "VERIFICATION_FAILURE" in error,
                      f"mint {what}: Apple's verifier under Apple's real roots: {error or 'accepted'}")
            path = os.path.join(folder, f"minted-{number}.jws")
            with open(path, "w") as f:
                f.write(token + "\n")
            extra = ["--app-apple-id", str(app_apple_id)] if app_apple_id is not None else []
            result = subprocess.run([binary, "-q", "--bundle-id", BUNDLE, "--environment", environment, *extra, path],
                                    capture_output=True, text=True)
            check(result.returncode == 2, f"mint {label}: jwsinspect under Apple's roots (no --root): exit "
                                          f"{result.returncode}, not 2 (untrusted root): {result.stderr.strip()}")
            result = jwsinspect(path, environment, *extra, "--format", "json")
            if not check(result.returncode == 0, f"mint {label}: jwsinspect exit {result.returncode}: "
                                                 f"{result.stdout[:400]} {result.stderr.strip()}"):
                continue
            answer = json.loads(result.stdout)
            check(answer.get("type") == KINDS[kind][1], f"mint {label}: jwsinspect's type is {answer.get('type')!r}")
            if kind == "notification":
                expected = nested_members(payload)
                nested = answer.get("nested") or {}
                check(sorted(nested) == sorted(expected), f"mint {label}: jwsinspect's nested {sorted(nested)}, "
                                                          f"the payload's {sorted(expected)}")
                for member, inner in nested.items():
                    check(inner.get("status") == "valid", f"mint {label}: jwsinspect: nested {member} is "
                                                          f"{inner.get('status')}: {inner.get('reason')}")

        # The suite: Apple's verdict is `expect`, jwsinspect's exit status is `exitCode`.
        suite = os.path.join(folder, "suite")
        result = subprocess.run([binary, "mint", "suite", "--ca", ca, "--bundle-id", BUNDLE, "--environment", "Sandbox",
                                 "--out", suite], capture_output=True, text=True)
        if result.returncode != 0 and "kind must be" in result.stderr:
            print("difftest: mint: suite not available, skipped")
            return checks, failures
        if not check(result.returncode == 0, f"mint suite: exit {result.returncode}: {result.stderr.strip()}"):
            return checks, failures
        with open(os.path.join(suite, "manifest.json")) as f:
            cases = json.load(f)["cases"]
        check(len(cases) > 0, "mint suite: manifest.json has no cases")
        expects = {case.get("expect") for case in cases}
        check(expects == {"valid", "invalid"}, f"mint suite: the cases' expect values are {sorted(map(str, expects))}")
        for case in cases:
            name, kind = case.get("file"), case.get("type")
            label = f"suite {name} ({kind}, {case.get('defect')})"
            if not check(kind in KINDS and case.get("expect") in ("valid", "invalid") and isinstance(case.get("exitCode"), int),
                         f"{label}: bad manifest entry: {case}"):
                continue
            path = os.path.join(suite, name)
            with open(path) as f:
                token = f.read().strip()
            error = apple_verify(lambda: verifier([root], "Sandbox"), kind, token)
            if case["expect"] == "valid":
                check(error is None, f"{label}: expect valid, Apple's verifier refuses it: {error}")
            else:
                check(error is not None, f"{label}: expect invalid, Apple's verifier accepts it")
            result = jwsinspect(path, "Sandbox")
            check(result.returncode == case["exitCode"],
                  f"{label}: jwsinspect exit {result.returncode}, manifest exitCode {case['exitCode']}: {(result.stderr or result.stdout).strip()[:200]}")
        print(f"difftest: mint: suite of {len(cases)} cases checked")
    return checks, failures
