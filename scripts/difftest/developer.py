"""Differential test of `jwsinspect sign` (developer-signed JWS and the legacy offer signature).

jwsinspect signs every kind with a fresh P-256 key; PyJWT and `cryptography` verify each with
the public key alone and check every claim as Apple specifies it; Apple's own creators
(app-store-server-library) make the same kind from the same key, and their claims must be the
same set with the same values (nonce and times aside). The V1 signature must verify over the
exact bytes Apple's PromotionalOfferSignatureCreator signs for the same inputs.

The other way round (verify_apple_made): Apple's creators and API client make every kind, and
`jwsinspect --key` must verify each (exit 0, the right `type`) with the private key and with the
public key alone; refuse one made with another key under the same kid (exit 1), one whose kid
it has no key for (exit 2), and an API token checked after it expired (exit 7); and
`jwsinspect verify-offer-v1` must verify Apple's V1 signatures, and refuse them for a changed
field or another key.

run(binary) returns (checks made, failures as one line each).
"""
import base64, json, os, subprocess, tempfile, time, uuid
import jwt
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from appstoreserverlibrary.jws_signature_creator import (
    AdvancedCommerceAPIInAppRequest, AdvancedCommerceAPIInAppSignatureCreator,
    IntroductoryOfferEligibilitySignatureCreator, PromotionalOfferV2SignatureCreator)
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
from appstoreserverlibrary.api_client import BaseAppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment

KEY_ID = "DIFFTEST01"
ISSUER = "57246542-96fe-1a63-e053-0824d011072a"
BUNDLE = "com.example.app"


class Request(dict, AdvancedCommerceAPIInAppRequest):
    """An Advanced Commerce in-app request: Apple's creator unstructures it (cattrs) into these fields."""


def run(binary):
    checks, failures = 0, []

    def check(condition, what):
        nonlocal checks
        checks += 1
        if not condition:
            failures.append(what)

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = key.public_key()
    with tempfile.TemporaryDirectory() as folder:
        key_path = os.path.join(folder, f"AuthKey_{KEY_ID}.p8")
        with open(key_path, "wb") as f:
            f.write(pem)
        os.chmod(key_path, 0o600)

        def sign(*arguments):
            result = subprocess.run([binary, "sign", *arguments, "--key", key_path], capture_output=True, text=True)
            lines = result.stdout.split("\n")
            check(result.returncode == 0 and result.stderr == "" and len(lines) == 2 and lines[1] == "",
                  f"sign {arguments[0]}: exit {result.returncode}, not exactly one line: {result.stdout!r} {result.stderr!r}")
            return lines[0]

        credentials = ["--issuer-id", ISSUER, "--bundle-id", BUNDLE]
        # A request Apple's model accepts (jwsinspect checks it as the Advanced Commerce API does).
        request = {"operation": "CREATE_SUBSCRIPTION", "version": "1",
                   "requestInfo": {"requestReferenceId": "d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70"},
                   "currency": "USD", "descriptors": {"description": "Pro monthly", "displayName": "Pro"},
                   "items": [{"SKU": "pro.monthly", "description": "Pro monthly", "displayName": "Pro", "price": 9990}],
                   "taxCode": "C003-00-2", "period": "P1M"}
        # (kind, arguments, aud, feature claims jwsinspect must carry, Apple's creator making the same)
        kinds = [
            ("api-token", ["--lifetime", "10m"], "appstoreconnect-v1", {}, None),
            ("promotional-offer", ["--product-id", "pro", "--offer-id", "WINBACK"], "promotional-offer",
             {"productId": "pro", "offerIdentifier": "WINBACK"},
             lambda: PromotionalOfferV2SignatureCreator(pem, KEY_ID, ISSUER, BUNDLE).create_signature("pro", "WINBACK", None)),
            ("promotional-offer", ["--product-id", "pro", "--offer-id", "WINBACK", "--transaction-id", "2000"],
             "promotional-offer", {"productId": "pro", "offerIdentifier": "WINBACK", "transactionId": "2000"},
             lambda: PromotionalOfferV2SignatureCreator(pem, KEY_ID, ISSUER, BUNDLE).create_signature("pro", "WINBACK", "2000")),
            ("introductory-offer-eligibility",
             ["--product-id", "pro", "--allow-introductory-offer", "true", "--transaction-id", "2000"],
             "introductory-offer-eligibility", {"productId": "pro", "allowIntroductoryOffer": True, "transactionId": "2000"},
             lambda: IntroductoryOfferEligibilitySignatureCreator(pem, KEY_ID, ISSUER, BUNDLE).create_signature("pro", True, "2000")),
            ("advanced-commerce", ["--request", json.dumps(request)], "advanced-commerce-api",
             {"request": base64.b64encode(json.dumps(request).encode()).decode()},
             lambda: AdvancedCommerceAPIInAppSignatureCreator(pem, KEY_ID, ISSUER, BUNDLE).create_signature(Request(request))),
        ]
        for kind, arguments, audience, feature, apple in kinds:
            before = int(time.time())
            token = sign(kind, *arguments, *credentials)
            after = int(time.time())
            what = f"sign {kind}"
            try:
                header = jwt.get_unverified_header(token)
                claims = jwt.decode(token, public, algorithms=["ES256"], audience=audience, issuer=ISSUER,
                                    options={"require": ["iss", "iat", "aud"], "verify_exp": True, "verify_iat": True})
            except jwt.PyJWTError as error:
                check(False, f"{what}: PyJWT refuses it: {error}")
                continue
            check(header == {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}, f"{what}: header {header}")
            check(all(part and "=" not in part for part in token.split(".")), f"{what}: padded or empty segment")
            check(claims.get("bid") == BUNDLE, f"{what}: bid {claims.get('bid')}")
            check(isinstance(claims["iat"], int) and before <= claims["iat"] <= after, f"{what}: iat {claims['iat']}")
            expected = {"iss": ISSUER, "iat": claims["iat"], "aud": audience, "bid": BUNDLE, **feature}
            if kind == "api-token":
                check(claims.get("exp") == claims["iat"] + 600, f"{what}: exp {claims.get('exp')} is not iat + 10m")
                check(claims.get("exp", 0) - claims["iat"] <= 3600, f"{what}: lifetime over 60 minutes")
                check("nonce" not in claims, f"{what}: has a nonce")
                expected["exp"] = claims["iat"] + 600
            else:
                check("exp" not in claims, f"{what}: has exp (Apple: it makes the request fail)")
                nonce = claims.get("nonce", "")
                try:
                    check(str(uuid.UUID(nonce)) == nonce, f"{what}: nonce {nonce!r} is not a lowercase UUID")
                except ValueError:
                    check(False, f"{what}: nonce {nonce!r} is not a UUID")
                expected["nonce"] = nonce
            check(claims == expected, f"{what}: claims {claims}, expected {expected}")
            if kind == "advanced-commerce":
                decoded = json.loads(base64.b64decode(claims["request"], validate=True))
                check(decoded == request, f"{what}: request decodes to {decoded}")
            # A changed claim no longer verifies.
            head, payload, signature = token.split(".")
            forged = json.dumps({**claims, "bid": BUNDLE + ".other"}, separators=(",", ":")).encode()
            forged_token = f"{head}.{base64.urlsafe_b64encode(forged).decode().rstrip('=')}.{signature}"
            try:
                jwt.decode(forged_token, public, algorithms=["ES256"], audience=audience)
                check(False, f"{what}: a token with a changed bid verifies")
            except jwt.InvalidSignatureError:
                check(True, "")
            # Apple's creator, same key and inputs: the same header and claims (nonce and iat aside).
            if apple:
                theirs = jwt.decode(apple(), public, algorithms=["ES256"], audience=audience)
                check(jwt.get_unverified_header(apple()) == header, f"{what}: header differs from Apple's creator")
                same = lambda c: {k: v for k, v in c.items() if k not in ("nonce", "iat")}
                check(same(theirs) == same(claims), f"{what}: claims {same(claims)} differ from Apple's {same(theirs)}")
                check(set(theirs) == set(claims), f"{what}: claim names {sorted(claims)} differ from Apple's {sorted(theirs)}")
            else:
                # Apple's API client: bid, iss, aud, exp (PyJWT adds no iat; Apple's documentation asks for it).
                check(set(claims) - {"iat"} == {"bid", "iss", "aud", "exp"}, f"{what}: claim names {sorted(claims)}")

        # V1: jwsinspect's signature verifies over the bytes Apple's creator signs for the same inputs.
        for username, nonce in [("AppAccountToken", "20FBA8A0-2B80-4A7D-A17F-85C1854727F8"), ("", str(uuid.uuid4())),
                                ("ÄÖÜ-User", str(uuid.uuid4()))]:
            timestamp = 1698148900000
            # An empty name is signed with --no-application-username (an empty value is refused as a mistake).
            name = ["--application-username", username] if username else ["--no-application-username"]
            result = subprocess.run([binary, "sign", "promotional-offer-v1", "--json", "--key", key_path, "--bundle-id",
                                     BUNDLE, "--product-id", "productId", "--offer-id", "offerId", *name,
                                     "--nonce", nonce, "--timestamp", str(timestamp)], capture_output=True, text=True)
            what = f"sign promotional-offer-v1 (username {username!r})"
            check(result.returncode == 0, f"{what}: exit {result.returncode}: {result.stderr}")
            if result.returncode != 0:
                continue
            output = json.loads(result.stdout)
            signed_fields = output["payload"]
            check(output["record"] == "offerSignatureV1" and signed_fields["keyIdentifier"] == KEY_ID
                  and signed_fields["nonce"] == nonce.lower() and signed_fields["timestamp"] == timestamp,
                  f"{what}: {output}")
            creator = PromotionalOfferSignatureCreator(pem, KEY_ID, BUNDLE)
            signed = []
            real_key = creator._signing_key

            class Recorder:
                def sign(self, data, algorithm):
                    signed.append(data)
                    return real_key.sign(data, algorithm)

            creator._signing_key = Recorder()
            apple_signature = creator.create_signature("productId", "offerId", username, uuid.UUID(nonce), timestamp)
            try:
                public.verify(base64.b64decode(output["signature"], validate=True), signed[0], ec.ECDSA(hashes.SHA256()))
                check(True, "")
            except InvalidSignature:
                check(False, f"{what}: the signature does not verify over Apple's string {signed[0]!r}")
            try:
                public.verify(base64.b64decode(apple_signature), signed[0], ec.ECDSA(hashes.SHA256()))
                check(True, "")
            except InvalidSignature:
                check(False, f"{what}: Apple's own signature does not verify (harness error)")
            text = subprocess.run([binary, "sign", "promotional-offer-v1", "--key", key_path, "--bundle-id", BUNDLE,
                                   "--product-id", "productId", "--offer-id", "offerId", *name,
                                   "--nonce", nonce, "--timestamp", str(timestamp)], capture_output=True, text=True)
            line = text.stdout.rstrip("\n")
            check(text.stdout.count("\n") == 1, f"{what}: not exactly one line")
            try:
                public.verify(base64.b64decode(line, validate=True), signed[0], ec.ECDSA(hashes.SHA256()))
                check(True, "")
            except (InvalidSignature, ValueError):
                check(False, f"{what}: the one-line signature does not verify")
        verify_apple_made(binary, pem, key_path, folder, check)
    return checks, failures


def verify_apple_made(binary, pem, key_path, folder, check):
    """Tokens Apple's library makes, verified by jwsinspect."""
    public_path = os.path.join(folder, "public.pem")
    with open(public_path, "wb") as f:
        f.write(serialization.load_pem_private_key(pem, None).public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    other = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    request = {"operation": "CREATE_ONE_TIME_CHARGE", "version": "1",
               "requestInfo": {"requestReferenceId": "d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70"}, "currency": "USD",
               "item": {"SKU": "coins.100", "description": "100 coins", "displayName": "Coins", "price": 990},
               "taxCode": "C003-00-2"}
    makers = [
        ("apiToken", lambda key: BaseAppStoreServerAPIClient(key, KEY_ID, ISSUER, BUNDLE, Environment.SANDBOX)._generate_token()),
        ("promotionalOffer", lambda key: PromotionalOfferV2SignatureCreator(key, KEY_ID, ISSUER, BUNDLE)
         .create_signature("pro", "WINBACK", "2000")),
        ("promotionalOffer", lambda key: PromotionalOfferV2SignatureCreator(key, KEY_ID, ISSUER, BUNDLE)
         .create_signature("pro", "WINBACK", None)),
        ("introductoryOfferEligibility", lambda key: IntroductoryOfferEligibilitySignatureCreator(key, KEY_ID, ISSUER, BUNDLE)
         .create_signature("pro", False, "2000")),
        ("advancedCommerceRequest", lambda key: AdvancedCommerceAPIInAppSignatureCreator(key, KEY_ID, ISSUER, BUNDLE)
         .create_signature(Request(request))),
    ]

    def inspect(token, *arguments):
        result = subprocess.run([binary, "--format", "json", *arguments, token], capture_output=True, text=True)
        try:
            return result.returncode, json.loads(result.stdout) if result.stdout else {}
        except json.JSONDecodeError:
            return result.returncode, {}

    for kind, make in makers:
        token = make(pem)
        what = f"Apple's {kind}"
        for keys in (["--key", key_path], ["--key", public_path, "--key-id", KEY_ID]):
            status, output = inspect(token, *keys, "--bundle-id", BUNDLE)
            check(status == 0 and output.get("type") == kind and output.get("status") == "valid",
                  f"{what} with {keys[1]}: exit {status}, {output.get('type')}, {output.get('reason')}")
        status, output = inspect(make(other), "--key", key_path)
        check(status == 1, f"{what} made with another key under kid {KEY_ID}: exit {status}, {output.get('reason')}")
        status, output = inspect(token)
        check(status == 2, f"{what} without --key: exit {status}, {output.get('reason')}")
        status, output = inspect(token, "--key", key_path, "--bundle-id", BUNDLE + ".other")
        check(status == 4, f"{what} with another --bundle-id: exit {status}, {output.get('reason')}")
    # V1: Apple's PromotionalOfferSignatureCreator signs; jwsinspect verify-offer-v1 verifies it,
    # and refuses it for a changed field or another key.
    for username in ["AppAccountToken", "", "ÄÖÜ-User"]:
        nonce, timestamp = uuid.uuid4(), int(time.time() * 1000)
        signature = PromotionalOfferSignatureCreator(pem, KEY_ID, BUNDLE).create_signature(
            "productId", "offerId", username, nonce, timestamp)
        fields = ["--bundle-id", BUNDLE, "--product-id", "productId", "--offer-id", "offerId",
                  "--application-username", username, "--nonce", str(nonce).upper(), "--timestamp", str(timestamp)]

        def verify(*arguments):
            return subprocess.run([binary, "verify-offer-v1", *arguments, signature], capture_output=True,
                                  text=True).returncode
        what = f"Apple's V1 signature (username {username!r})"
        for keys in (["--key", key_path], ["--key", public_path, "--key-id", KEY_ID]):
            status = verify(*keys, *fields)
            check(status == 0, f"{what} with {keys[1]}: exit {status}")
        changed = fields[:5] + ["offerId2"] + fields[6:]
        check(verify("--key", key_path, *changed) == 1, f"{what} with another offer ID verifies")
        other_path = os.path.join(folder, f"AuthKey_{KEY_ID}_other.p8")
        with open(other_path, "wb") as f:
            f.write(other)
        os.chmod(other_path, 0o600)
        check(verify("--key", other_path, "--key-id", KEY_ID, *fields) == 1, f"{what} verifies with another key")
    later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    status, output = inspect(makers[0][1](pem), "--key", key_path, "--at", later)
    check(status == 7, f"Apple's apiToken an hour later: exit {status}, {output.get('reason')}")
