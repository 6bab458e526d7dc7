#!/usr/bin/env python3
"""Differential test: jwsinspect against Apple's app-store-server-library (the reference).

Mints a test PKI and a corpus of tokens with `cryptography` (valid tokens of every
kind, then thousands of mutations), asks Apple's SignedDataVerifier and the jwsinspect
binary to accept or reject each, and reports every disagreement. Disagreements whose
class is listed in EXPECTED_DIFFERENCES (documented in DIFFERENCES.md) are where
jwsinspect differs on purpose; any other disagreement fails the run.

Then `jwsinspect sign` makes every developer token kind and the V1 offer signature, and PyJWT,
`cryptography` and Apple's signature creators check them (developer.py). Legacy receipts go
against python-asn1 and Apple's ReceiptUtility (receipts.py), and `jwsinspect mint`'s tokens and
suite against Apple's SignedDataVerifier (mint.py), and `--check-revocation` against that verifier
with online checks, on `openssl ocsp` responders on loopback (revocation.py).

Usage: difftest.py JWSINSPECT_BINARY [--seed N] [--jobs N]
"""
import base64, concurrent.futures, datetime, json, os, random, subprocess, sys, tempfile
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from appstoreserverlibrary.models.Environment import Environment
import developer
import mint
import receipts
import revocation

LEAF_OID, INTERMEDIATE_OID = "1.2.840.113635.100.6.11.1", "1.2.840.113635.100.6.2.1"
BUNDLE = "com.example.app"
UTC = datetime.timezone.utc
SIGNED_MS = 1735689600000  # 2025-01-01, inside the leaf's validity

# Mutation classes where jwsinspect and Apple's library differ on purpose (see DIFFERENCES.md).
EXPECTED_DIFFERENCES = {
    "base64-padding", "jwt-claims", "signedDate-string", "duplicate-keys", "payload-type-mismatch", "deep-nesting",
    "long-non-ascii-member-name", "x5c-padding-after-full-group", "b64-not-boolean",
    "no-key-identifiers", "json-number-beyond-double", "json-unpaired-surrogate", "payload-encoding",
    "raw-control-characters", "signedDate-not-a-date", "huge-number", "base64-whitespace",
    "intermediate-without-keyusage", "leaf-keycertsign-only", "weak-algorithms",
}
# Classes jwsinspect must refuse whole, whatever Apple's library answers (see DIFFERENCES.md).
REFUSED_BY_JWSINSPECT = {"duplicate-keys"}
FLIPS_PER_SEGMENT = 300


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "US"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "difftest"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def cert(cn, key, issuer_cert, issuer_key, ca, oid=None, not_before=None, not_after=None, serial=None, key_usage="default",
         key_ids=True):
    """key_usage: "default" (per ca), None (no extension) or "certsign" (keyCertSign only)."""
    nb = not_before or datetime.datetime(2020, 1, 1, tzinfo=UTC)
    na = not_after or datetime.datetime(2040, 1, 1, tzinfo=UTC)
    builder = (x509.CertificateBuilder().subject_name(name(cn))
               .issuer_name(issuer_cert.subject if issuer_cert else name(cn))
               .public_key(key.public_key()).serial_number(serial or x509.random_serial_number())
               .not_valid_before(nb).not_valid_after(na)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if key_usage is not None:
        signs_certificates = ca or key_usage == "certsign"
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=not ca and key_usage != "certsign", content_commitment=False, key_encipherment=False,
            data_encipherment=False, key_agreement=False, key_cert_sign=signs_certificates, crl_sign=ca,
            encipher_only=False, decipher_only=False), critical=True)
    if key_ids:
        builder = (builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key((issuer_key or key).public_key()), critical=False))
    if oid:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(oid), b"\x05\x00"), critical=False)
    return builder.sign(issuer_key or key, hashes.SHA256())


# `openssl ca`'s configuration for weak_cert: any subject, no checks of its own.
WEAK_CA_CONFIG = """[ca]
default_ca = weak
[weak]
database = index.txt
new_certs_dir = .
serial = serial
policy = any
unique_subject = no
[any]
countryName = optional
organizationName = optional
commonName = supplied
"""


def weak_cert(cn, key, issuer_cert, issuer_key, ca, oid, digest, not_before=None, not_after=None):
    """A certificate shaped like cert()'s, signed with `digest` ("sha1", "md5"), which cryptography refuses
    to sign with: issued by the `openssl` command (`openssl ca`, which keeps the given dates)."""
    request = x509.CertificateSigningRequestBuilder().subject_name(name(cn)).sign(key, hashes.SHA256())
    usage = "keyCertSign,cRLSign" if ca else "digitalSignature"
    extensions = (f"basicConstraints=critical,CA:{'TRUE' if ca else 'FALSE'}\nkeyUsage=critical,{usage}\n"
                  f"subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n{oid}=DER:05:00\n")
    start = (not_before or datetime.datetime(2020, 1, 1, tzinfo=UTC)).strftime("%Y%m%d%H%M%SZ")
    end = (not_after or datetime.datetime(2040, 1, 1, tzinfo=UTC)).strftime("%Y%m%d%H%M%SZ")
    issuer_pem = issuer_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())
    with tempfile.TemporaryDirectory() as folder:
        for file, data in [("request.pem", request.public_bytes(serialization.Encoding.PEM)),
                           ("issuer.pem", issuer_cert.public_bytes(serialization.Encoding.PEM)), ("issuer.key", issuer_pem),
                           ("extensions.cnf", extensions.encode()), ("ca.cnf", WEAK_CA_CONFIG.encode()),
                           ("index.txt", b""), ("serial", b"1000\n")]:
            with open(os.path.join(folder, file), "wb") as f:
                f.write(data)
        subprocess.run(["openssl", "ca", "-batch", "-config", "ca.cnf", "-cert", "issuer.pem", "-keyfile", "issuer.key",
                        "-in", "request.pem", "-out", "certificate.pem", "-startdate", start, "-enddate", end,
                        "-md", digest, "-extfile", "extensions.cnf", "-notext", "-preserveDN"],
                       cwd=folder, check=True, capture_output=True)
        with open(os.path.join(folder, "certificate.pem"), "rb") as f:
            return x509.load_pem_x509_certificate(f.read())


class PKI:
    def __init__(self, root_cn="Difftest Root", root=None, root_key=None, leaf_oid=True, intermediate_oid=True,
                 leaf_not_after=None, intermediate_key_usage="default", leaf_key_usage="default", key_ids=True,
                 intermediate_key=None, intermediate_digest=None, leaf_digest=None):
        """intermediate_key: the intermediate's key (P-384 by default); intermediate_digest, leaf_digest: the
        digest that signs each ("sha1", "md5"; SHA-256 by cert() when None)."""
        self.root_key = root_key or ec.generate_private_key(ec.SECP384R1())
        self.root = root or cert(root_cn, self.root_key, None, None, True, key_ids=key_ids)
        self.intermediate_key = intermediate_key or ec.generate_private_key(ec.SECP384R1())
        if intermediate_digest:
            self.intermediate = weak_cert("Difftest WWDR", self.intermediate_key, self.root, self.root_key, True,
                                          INTERMEDIATE_OID, intermediate_digest)
        else:
            self.intermediate = cert("Difftest WWDR", self.intermediate_key, self.root, self.root_key, True,
                                     INTERMEDIATE_OID if intermediate_oid else None, key_usage=intermediate_key_usage,
                                     key_ids=key_ids)
        self.leaf_key = ec.generate_private_key(ec.SECP256R1())
        leaf_dates = (datetime.datetime(2024, 1, 1, tzinfo=UTC), leaf_not_after or datetime.datetime(2026, 1, 1, tzinfo=UTC))
        if leaf_digest:
            self.leaf = weak_cert("Difftest Receipt Signing", self.leaf_key, self.intermediate, self.intermediate_key,
                                  False, LEAF_OID, leaf_digest, *leaf_dates)
        else:
            self.leaf = cert("Difftest Receipt Signing", self.leaf_key, self.intermediate, self.intermediate_key, False,
                             LEAF_OID if leaf_oid else None, *leaf_dates, key_usage=leaf_key_usage, key_ids=key_ids)

    def x5c(self):
        return [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in (self.leaf, self.intermediate, self.root)]


def sign(key, header_b64: str, payload_b64: str) -> str:
    signing_input = f"{header_b64}.{payload_b64}"
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return f"{signing_input}.{b64u(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def token(pki, payload, header=None, key=None, raw_payload=None, raw_header=None):
    header = header if header is not None else {"alg": "ES256", "x5c": pki.x5c()}
    hb = b64u(raw_header if raw_header is not None else json.dumps(header, separators=(",", ":")).encode())
    pb = b64u(raw_payload if raw_payload is not None else json.dumps(payload, separators=(",", ":")).encode())
    return sign(key or pki.leaf_key, hb, pb)


def payloads():
    transaction = {"transactionId": "1", "originalTransactionId": "1", "bundleId": BUNDLE, "productId": "pro",
                   "purchaseDate": SIGNED_MS - 1000, "expiresDate": SIGNED_MS + 86400000, "type": "Auto-Renewable Subscription",
                   "inAppOwnershipType": "PURCHASED", "signedDate": SIGNED_MS, "environment": "Sandbox",
                   "price": 9990, "currency": "USD", "storefront": "USA", "transactionReason": "PURCHASE"}
    renewal = {"originalTransactionId": "1", "autoRenewProductId": "pro", "productId": "pro", "autoRenewStatus": 1,
               "signedDate": SIGNED_MS, "environment": "Sandbox", "renewalDate": SIGNED_MS + 86400000}
    notification = {"notificationType": "DID_RENEW", "notificationUUID": "00000000-0000-4000-8000-000000000001",
                    "version": "2.0", "signedDate": SIGNED_MS,
                    "data": {"bundleId": BUNDLE, "environment": "Sandbox", "appAppleId": 1234, "status": 1}}
    app = {"receiptType": "Sandbox", "appAppleId": 1234, "bundleId": BUNDLE, "applicationVersion": "1",
           "receiptCreationDate": SIGNED_MS, "originalPurchaseDate": SIGNED_MS - 10**9, "originalApplicationVersion": "1"}
    return {"transaction": transaction, "renewalInfo": renewal, "notification": notification, "appTransaction": app}


def corpus(rng):
    """(class, kind, token) triples."""
    pki = PKI()
    # One of the leaf and the intermediate with base64 padding and one without, so that both
    # x5c padding classes are made (a certificate's length varies with its signature's).
    while sorted(entry.endswith("=") for entry in pki.x5c()[:2]) != [False, True]:
        pki = PKI()
    attacker = PKI("Attacker Root")
    impostor = PKI("Difftest Root")  # same root name, other key
    no_leaf_oid = PKI(root=pki.root, root_key=pki.root_key, leaf_oid=False)
    no_int_oid = PKI(root=pki.root, root_key=pki.root_key, intermediate_oid=False)
    expired = PKI(root=pki.root, root_key=pki.root_key, leaf_not_after=datetime.datetime(2024, 6, 1, tzinfo=UTC))
    no_intermediate_usage = PKI(root=pki.root, root_key=pki.root_key, intermediate_key_usage=None)
    certsign_leaf = PKI(root=pki.root, root_key=pki.root_key, leaf_key_usage="certsign")
    no_key_ids = PKI(root=pki.root, root_key=pki.root_key, key_ids=False)
    # Weak cryptography (jwsinspect: OpenSSL's authentication level 2 for JWS chains).
    sha1_intermediate = PKI(root=pki.root, root_key=pki.root_key, intermediate_digest="sha1")
    rsa_intermediate_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    sha1_leaf = PKI(root=pki.root, root_key=pki.root_key, intermediate_key=rsa_intermediate_key, leaf_digest="sha1")
    md5_leaf = PKI(root=pki.root, root_key=pki.root_key, intermediate_key=rsa_intermediate_key, leaf_digest="md5")
    rsa1024_intermediate = PKI(root=pki.root, root_key=pki.root_key,
                               intermediate_key=rsa.generate_private_key(public_exponent=65537, key_size=1024))
    p192_intermediate = PKI(root=pki.root, root_key=pki.root_key, intermediate_key=ec.generate_private_key(ec.SECP192R1()))
    cases = []
    add = lambda cls, kind, tok: cases.append((cls, kind, tok))
    base = payloads()
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for kind, payload in base.items():
        valid = token(pki, payload)
        add("valid", kind, valid)
        # Flipped characters in each segment.
        for segment in range(3):
            for _ in range(FLIPS_PER_SEGMENT):
                parts = valid.split(".")
                text = parts[segment]
                i = rng.randrange(len(text))
                parts[segment] = text[:i] + rng.choice(alphabet.replace(text[i], "")) + text[i + 1:]
                add(f"flip-{['header', 'payload', 'signature'][segment]}", kind, ".".join(parts))
        # Re-signed payloads with edited fields.
        def json_type(value):
            return {bool: "bool", int: "number", float: "number", str: "string", list: "array", dict: "object"}.get(type(value), "null")

        for field in list(payload.keys()):
            edited = dict(payload)
            del edited[field]
            add("resigned-field-removed", kind, token(pki, edited))
            for value in rng.sample(["", "x", 0, -1, None, True, [], {}, 1.5, "Production", BUNDLE + ".other", 10**20], 4):
                edited = dict(payload)
                edited[field] = value
                if field == "signedDate" and isinstance(value, str):
                    cls = "signedDate-string"
                elif json_type(value) != json_type(payload[field]):
                    cls = "payload-type-mismatch"  # Apple's typed models cannot hold it
                else:
                    cls = "resigned-field-edited"
                add(cls, kind, token(pki, edited))
        for extra, cls in [({"exp": 1}, "jwt-claims"), ({"nbf": 4102444800}, "jwt-claims"), ({"iat": "x"}, "jwt-claims"),
                           ({"aud": "x"}, "jwt-claims"), ({"newField": 1}, "resigned-extra-field"),
                           ({"signedDate": "1735689600000"}, "signedDate-string"), ({"signedDate": SIGNED_MS + 0.5}, "resigned-fractional-date"),
                           ({"signedDate": 1780000000000}, "resigned-after-leaf-expiry"), ({"signedDate": 1600000000000}, "resigned-before-leaf")]:
            edited = dict(payload)
            edited.update(extra)
            add(cls, kind, token(pki, edited))
        # x5c variations.
        x5c = pki.x5c()
        for cls, chain in [("x5c-two", x5c[:2]), ("x5c-one", x5c[:1]), ("x5c-empty", []), ("x5c-four", x5c + x5c[:1]),
                           ("x5c-reordered", [x5c[1], x5c[0], x5c[2]]), ("x5c-reversed", x5c[::-1]),
                           ("x5c-duplicated-leaf", [x5c[0], x5c[0], x5c[2]]), ("x5c-root-swapped", [x5c[0], x5c[1], attacker.x5c()[2]]),
                           ("x5c-root-as-intermediate", [x5c[0], x5c[2], x5c[2]]), ("x5c-not-base64", [x5c[0], "!!", x5c[2]]),
                           ("x5c-urlsafe", [x5c[0].replace("+", "-").replace("/", "_"), x5c[1], x5c[2]]),
                           ("x5c-unpadded", [x5c[0].rstrip("="), x5c[1].rstrip("="), x5c[2]]),
                           ("x5c-garbage-cert", [base64.b64encode(b"\x30\x03\x02\x01\x01").decode(), x5c[1], x5c[2]])]:
            add(cls, kind, token(pki, payload, {"alg": "ES256", "x5c": chain}))
        # Padding after correct padding: Apple's b64decode(validate=True) refuses excess data after
        # padding; a = after a whole group it takes, jwsinspect refuses (RFC 4648 length).
        padded_index = next((i for i in (0, 1) if x5c[i].endswith("=")), None)
        if padded_index is not None:
            for extra in ["=", "==", "===="]:
                chain = list(x5c)
                chain[padded_index] += extra
                add("x5c-extra-padding", kind, token(pki, payload, {"alg": "ES256", "x5c": chain}))
        whole_index = next((i for i in (0, 1) if not x5c[i].endswith("=")), None)
        if whole_index is not None:
            for extra in ["=", "==", "===="]:
                chain = list(x5c)
                chain[whole_index] += extra
                add("x5c-padding-after-full-group", kind, token(pki, payload, {"alg": "ES256", "x5c": chain}))
        # x5c[2] is never read by Apple's libraries: whatever it holds, the chain is leaf -> intermediate -> root.
        for third in ["!!", "", base64.b64encode(b"hello").decode(), base64.b64encode(b"\x30\x03\x02\x01\x01").decode(),
                      attacker.x5c()[1], x5c[0]]:
            add("x5c2-not-a-certificate", kind, token(pki, payload, {"alg": "ES256", "x5c": [x5c[0], x5c[1], third]}))
        for third in [3, None, {"a": 1}, [], True]:
            add("x5c2-not-a-string", kind, token(pki, payload, {"alg": "ES256", "x5c": [x5c[0], x5c[1], third]}))
        add("x5c-missing", kind, token(pki, payload, {"alg": "ES256"}))
        add("x5c-not-array", kind, token(pki, payload, {"alg": "ES256", "x5c": x5c[0]}))
        add("x5c-numbers", kind, token(pki, payload, {"alg": "ES256", "x5c": [1, 2, 3]}))
        # Certificates: missing OIDs, wrong roots, expired leaves.
        add("leaf-without-oid", kind, token(no_leaf_oid, payload))
        add("intermediate-without-oid", kind, token(no_int_oid, payload))
        add("untrusted-root", kind, token(attacker, payload))
        add("impostor-root", kind, token(impostor, payload))
        add("expired-leaf", kind, token(expired, payload))
        # OpenSSL's strict checks (Apple's Python library sets X509_STRICT; jwsinspect validates
        # RFC 5280 as Apple's Swift, Java and Node libraries do, with a note, and refuses them
        # only with --x509-strict).
        add("intermediate-without-keyusage", kind, token(no_intermediate_usage, payload))
        add("leaf-keycertsign-only", kind, token(certsign_leaf, payload))
        add("no-key-identifiers", kind, token(no_key_ids, payload))
        for weak in [sha1_intermediate, sha1_leaf, md5_leaf, rsa1024_intermediate, p192_intermediate]:
            add("weak-algorithms", kind, token(weak, payload))
        add("wrong-key", kind, token(pki, payload, key=ec.generate_private_key(ec.SECP256R1())))
        direct_leaf_key = ec.generate_private_key(ec.SECP256R1())
        direct = cert("Direct Leaf", direct_leaf_key, pki.root, pki.root_key, False, LEAF_OID,
                      datetime.datetime(2024, 1, 1, tzinfo=UTC), datetime.datetime(2026, 1, 1, tzinfo=UTC))
        direct_b64 = base64.b64encode(direct.public_bytes(serialization.Encoding.DER)).decode()
        add("path-without-x5c1", kind, token(pki, payload, {"alg": "ES256", "x5c": [direct_b64, x5c[1], x5c[2]]}, key=direct_leaf_key))
        # Header variations.
        for alg in ["none", "HS256", "ES384", "RS256", "es256", "ES256 ", "", None, 256]:
            add("alg", kind, token(pki, payload, {"alg": alg, "x5c": x5c}))
        add("crit-header", kind, token(pki, payload, {"alg": "ES256", "x5c": x5c, "crit": ["exp"]}))
        # RFC 7797's unencoded payload: b64 false needs crit (PyJWT refuses it without a detached
        # payload); b64 true is the default; anything else jwsinspect refuses, PyJWT ignores.
        add("b64-false", kind, token(pki, payload, {"alg": "ES256", "x5c": x5c, "b64": False}))
        add("b64-true", kind, token(pki, payload, {"alg": "ES256", "x5c": x5c, "b64": True}))
        for b64 in [0, "no", None]:
            add("b64-not-boolean", kind, token(pki, payload, {"alg": "ES256", "x5c": x5c, "b64": b64}))
        for extra in [{"kid": "Apple_Xcode_Key"}, {"typ": "JWT"}, {"extra": {"a": [1]}}, {"cty": "x"}]:
            add("header-extra-key", kind, token(pki, payload, {"alg": "ES256", "x5c": x5c, **extra}))
        # Base64 variants (the signing input is re-signed, so only the encoding differs).
        hb = b64u(json.dumps({"alg": "ES256", "x5c": x5c}, separators=(",", ":")).encode())
        pb = b64u(json.dumps(payload, separators=(",", ":")).encode())
        padded = lambda s: s + "=" * (-len(s) % 4)
        add("base64-padding", kind, sign(pki.leaf_key, padded(hb), padded(pb)))
        # A member whose bytes encode to '+' and '/' in the standard alphabet ('-' and '_' in base64url).
        with_symbols = json.dumps({**payload, "note": "~~~???>>>"}, separators=(",", ":")).encode()
        std = base64.b64encode(with_symbols).decode().rstrip("=")
        assert "+" in std or "/" in std
        add("base64-standard-alphabet", kind, sign(pki.leaf_key, hb, std))
        add("base64url-symbols", kind, sign(pki.leaf_key, hb, b64u(with_symbols)))
        t = valid.split(".")
        add("base64-whitespace", kind, f"{t[0]}.{t[1][:10]} {t[1][10:]}.{t[2]}")
        if len(pb) % 4 in (2, 3):
            last = alphabet.index(pb[-1])
            noncanonical = pb[:-1] + alphabet[last | (1 if len(pb) % 4 == 3 else 3)]
            if noncanonical != pb:
                add("base64-noncanonical", kind, sign(pki.leaf_key, hb, noncanonical))
        # JSON variants.
        text = json.dumps(payload, separators=(",", ":"))
        # Members named twice (Python keeps the last; jwsinspect refuses them all): the environment
        # (a notification's is inside `data`), Production after Sandbox and before it, escaped or not;
        # and `alg` in the header.
        env = '"receiptType":"Sandbox"' if kind == "appTransaction" else '"environment":"Sandbox"'
        assert env in text
        production = env.replace("Sandbox", "Production")
        escaped = production.replace("e", "\\u0065", 1)
        for twice in [env + "," + production, production + "," + env, escaped + "," + env]:
            add("duplicate-keys", kind, token(pki, None, raw_payload=text.replace(env, twice).encode()))
        header_text = json.dumps({"alg": "ES256", "x5c": x5c}, separators=(",", ":"))
        add("duplicate-keys", kind, token(pki, payload, raw_header=('{"alg":"none",' + header_text[1:]).encode()))
        add("duplicate-keys", kind, token(pki, payload, raw_header=(header_text[:-1] + ',"alg":"none"}').encode()))
        add("deep-nesting", kind, token(pki, None, raw_payload=(text[:-1] + ',"deep":' + "[" * 600 + "]" * 600 + "}").encode()))
        # A member name of combining marks: Swift compares such names by canonical equivalence,
        # in more than linear time, so jwsinspect refuses one over 1024 bytes; at 1024 it agrees.
        marks = "\u0301\u0316"
        add("long-non-ascii-member-name", kind, token(pki, None, raw_payload=(text[:-1] + ',"a' + marks * 300 + '":1}').encode()))
        add("long-non-ascii-member-name-ok", kind, token(pki, None, raw_payload=(text[:-1] + ',"a' + marks * 200 + '":1}').encode()))
        add("deep-nesting-ok", kind, token(pki, None, raw_payload=(text[:-1] + ',"deep":' + "[" * 100 + "]" * 100 + "}").encode()))
        add("huge-number", kind, token(pki, None, raw_payload=(text[:-1] + ',"big":' + "9" * 400 + "}").encode()))
        # What Foundation's parser lets through and RFC 8259 does not (jwsinspect refuses it now).
        add("json-trailing-comma", kind, token(pki, None, raw_payload=(text[:-1] + ',}').encode()))
        add("json-trailing-comma", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":[1,]}').encode()))
        add("json-leading-zero", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":01}').encode()))
        add("json-bare-minus", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":-}').encode()))
        add("json-unknown-escape", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":"\\q"}').encode()))
        # Valid JSON syntax that Foundation cannot decode (refused by jwsinspect; Python reads it).
        add("json-number-beyond-double", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":1e400}').encode()))
        add("json-unpaired-surrogate", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":"\\ud800"}').encode()))
        # Encodings other than UTF-8 (Python's json.loads detects and reads them).
        add("payload-encoding", kind, token(pki, None, raw_payload=b"\xef\xbb\xbf" + text.encode()))
        add("payload-encoding", kind, token(pki, None, raw_payload=text.encode("utf-16-le")))
        add("payload-encoding", kind, token(pki, None, raw_payload=text.encode("utf-32-be")))
        # Raw control characters inside strings: kept by jwsinspect (escaped in output).
        add("raw-control-characters", kind, token(pki, None, raw_payload=(text[:-1] + ',"x":"a\tb\u0001"}').encode()))
        # Signing dates that are numbers but no dates (jwsinspect checks certificates now).
        if "signedDate" in payload or "receiptCreationDate" in payload:
            field = "signedDate" if "signedDate" in payload else "receiptCreationDate"
            for value in ["1e22", "-1e22", "1" * 30]:
                add("signedDate-not-a-date", kind, token(pki, None, raw_payload=text.replace(f'"{field}":{SIGNED_MS}', f'"{field}":{value}').encode()))
        add("non-utf8", kind, token(pki, None, raw_payload=(text[:-1] + ',"s":"').encode() + b"\xff\xfe" + b'"}'))
        add("trailing-garbage", kind, token(pki, None, raw_payload=text.encode() + b" x"))
        add("payload-not-object", kind, token(pki, None, raw_payload=b"[1,2]"))
        if kind == "notification":
            # `data` present but not an object: Apple's model cannot hold it; jwsinspect reads the
            # identity from it (nothing), never from the `summary` after it.
            for data in [5, [], "x"]:
                edited = {k: v for k, v in payload.items() if k != "data"}
                edited["data"] = data
                edited["summary"] = {"bundleId": BUNDLE, "environment": "Sandbox"}
                add("notification-data-not-object", kind, token(pki, edited))
        add("payload-type-mismatch", kind, token(pki, None, raw_payload=text.replace('"Sandbox"', '["Sandbox"]').encode()))
        add("header-not-json", kind, sign(pki.leaf_key, b64u(b"not json"), pb))
        add("truncated", kind, valid[: len(valid) // 2])
        # header.payload. : an empty signature (how alg none is written), under Apple's header and under alg none.
        add("empty-signature", kind, valid[: valid.rindex(".") + 1])
        add("empty-signature", kind, b64u(json.dumps({"alg": "none", "x5c": x5c}).encode()) + "." + pb + ".")
        add("segments-four", kind, valid + ".x")
    return pki, cases


def apple_accepts(verifier, kind, tok):
    method = {"transaction": verifier.verify_and_decode_signed_transaction,
              "renewalInfo": verifier.verify_and_decode_renewal_info,
              "notification": verifier.verify_and_decode_notification,
              "appTransaction": verifier.verify_and_decode_app_transaction}[kind]
    try:
        method(tok)
        return True
    except VerificationException:
        return False
    except Exception:  # Apple's library raises other errors on payloads its models cannot hold
        return False


def jwsinspect_accepts(binary, root_path, kind, tok):
    result = subprocess.run([binary, "-q", "--root", root_path, "--environment", "Sandbox", "--bundle-id", BUNDLE,
                             "--type", kind, "--", tok], capture_output=True)
    if result.returncode not in (0, 1, 2, 3, 4, 5, 66):
        raise SystemExit(f"jwsinspect crashed or misbehaved (exit {result.returncode}) on: {tok[:200]}\n{result.stderr.decode()}")
    return result.returncode == 0


def main():
    binary = sys.argv[1]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else os.cpu_count()
    rng = random.Random(seed)
    pki, cases = corpus(rng)
    root_der = pki.root.public_bytes(serialization.Encoding.DER)
    verifier = SignedDataVerifier([root_der], False, Environment.SANDBOX, BUNDLE)
    with tempfile.TemporaryDirectory() as folder:
        root_path = os.path.join(folder, "root.der")
        with open(root_path, "wb") as f:
            f.write(root_der)
        apple = [apple_accepts(verifier, kind, tok) for _, kind, tok in cases]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            ours = list(pool.map(lambda c: jwsinspect_accepts(binary, root_path, c[1], c[2]), cases))
    by_class = {}
    for (cls, kind, tok), a, o in zip(cases, apple, ours):
        entry = by_class.setdefault(cls, {"cases": 0, "agree": 0, "apple_only": [], "ours_only": [], "ours": []})
        entry["cases"] += 1
        if o:
            entry["ours"].append((kind, tok))
        if a == o:
            entry["agree"] += 1
        elif a:
            entry["apple_only"].append((kind, tok))
        else:
            entry["ours_only"].append((kind, tok))
    agree = sum(e["agree"] for e in by_class.values())
    print(f"difftest: {len(cases)} cases, {agree} agree, {len(cases) - agree} differ "
          f"(accepted by both: {sum(a and o for a, o in zip(apple, ours))}, rejected by both: {sum((not a) and (not o) for a, o in zip(apple, ours))})")
    print(f"{'class':32} {'cases':>6} {'agree':>6} {'only Apple accepts':>19} {'only jwsinspect accepts':>24}")
    unexpected = []
    for cls in sorted(by_class):
        e = by_class[cls]
        print(f"{cls:32} {e['cases']:>6} {e['agree']:>6} {len(e['apple_only']):>19} {len(e['ours_only']):>24}")
        if (e["apple_only"] or e["ours_only"]) and cls not in EXPECTED_DIFFERENCES:
            unexpected.append(cls)
        if e["ours"] and cls in REFUSED_BY_JWSINSPECT:
            unexpected.append(cls)
    # Developer-signed tokens: jwsinspect's `sign` makes, PyJWT/cryptography and Apple's creators check.
    developer_checks, developer_failures = developer.run(binary)
    print(f"difftest: sign: {developer_checks} checks of developer tokens and V1 offer signatures, "
          f"{len(developer_failures)} failed")
    for failure in developer_failures:
        print(f"  sign: {failure}")
    # Legacy receipts: decoded fields against python-asn1, transaction IDs against Apple's ReceiptUtility.
    receipt_checks, receipt_failures = receipts.run(binary)
    print(f"difftest: receipts: {receipt_checks} checks against python-asn1 and Apple's ReceiptUtility, "
          f"{len(receipt_failures)} failed")
    for failure in receipt_failures:
        print(f"  receipts: {failure}")
    # mint: minted tokens and the suite's manifest against Apple's SignedDataVerifier and jwsinspect.
    mint_checks, mint_failures = mint.run(binary)
    print(f"difftest: mint: {mint_checks} checks of minted tokens and the suite against Apple's SignedDataVerifier, "
          f"{len(mint_failures)} failed")
    for failure in mint_failures:
        print(f"  mint: {failure}")
    # Revocation: --check-revocation and Apple's verifier with online checks, on local openssl ocsp.
    revocation_checks, revocation_failures = revocation.run(binary)
    print(f"difftest: revocation: {revocation_checks} checks against Apple's SignedDataVerifier with online checks "
          f"(openssl ocsp on loopback: good, a revoked leaf, no responder), {len(revocation_failures)} failed")
    for failure in revocation_failures:
        print(f"  revocation: {failure}")
    if unexpected:
        for cls in unexpected:
            e = by_class[cls]
            must_refuse = e["ours"] if cls in REFUSED_BY_JWSINSPECT else []
            for side, items in (("only Apple accepts", e["apple_only"]), ("only jwsinspect accepts", e["ours_only"]),
                                ("jwsinspect accepts what it must refuse", must_refuse)):
                for kind, tok in items[:3]:
                    print(f"  {cls} ({side}, {kind}): {tok[:160]}...")
        raise SystemExit(f"difftest: unexplained disagreements in: {', '.join(unexpected)}")
    if developer_failures:
        raise SystemExit(f"difftest: sign: {len(developer_failures)} checks failed")
    if receipt_failures:
        raise SystemExit(f"difftest: receipts: {len(receipt_failures)} checks failed")
    if mint_failures:
        raise SystemExit(f"difftest: mint: {len(mint_failures)} checks failed")
    if revocation_failures:
        raise SystemExit(f"difftest: revocation: {len(revocation_failures)} checks failed")
    print("difftest: every disagreement is a documented difference (scripts/difftest/DIFFERENCES.md)")


if __name__ == "__main__":
    main()
