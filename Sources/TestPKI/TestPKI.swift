internal import COpenSSL
internal import FoundationEssentials

/// Mints X.509 certificates and compact JWS tokens shaped like Apple's App Store ones.
///
/// Everything is produced through OpenSSL's C API (`X509_*`, `X509V3_*`,
/// `EVP_*`); no ASN.1 is written by hand.
public enum TestPKI {
    /// Apple's marker extension on App Store receipt-signing leaf certificates.
    public static let leafOID = "1.2.840.113635.100.6.11.1"
    /// Apple's marker extension on the WWDR intermediate certificate.
    public static let intermediateOID = "1.2.840.113635.100.6.2.1"
    /// The organisation (O) of every subject this module issues.
    public static let organization = "jwsinspect test PKI"
    /// The country (C) of every subject this module issues.
    public static let country = "US"

    /// Issues a certificate for `key` (default: a fresh P-256 key) signed by `issuer`
    /// (nil = self-signed with `key`), X.509 v3, signed with `X509_sign` and `spec.signatureDigest`
    /// (default SHA-256: ecdsa-with-SHA256 with an EC issuer key, sha256WithRSAEncryption with an RSA one).
    ///
    /// The subject is `CN=<commonName>, O=jwsinspect test PKI, C=US` (RFC 4514 order;
    /// encoded as C, O, CN like Apple's certificates), the issuer is the issuer's subject.
    /// Extensions, in order: basicConstraints and keyUsage (both critical, per
    /// `spec.isCA`, keyUsage as `spec.keyUsage` says when set), subjectKeyIdentifier (`hash`) and authorityKeyIdentifier
    /// (`keyid:always`) when `spec.keyIdentifiers`, then each of `spec.markerOIDs`
    /// non-critical with the DER NULL value `05 00`.
    ///
    /// An invalid dotted OID in `spec.markerOIDs` is a programming error and stops the process.
    public static func issue(_ spec: CertificateSpec, key: TestKey = .p256(), issuer: TestCertificate?)
        -> TestCertificate
    {
        let x509 = OpenSSL.unwrap(X509_new(), "X509_new")
        let signingKey = issuer?.key ?? key

        OpenSSL.check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
        OpenSSL.check(
            ASN1_INTEGER_set_uint64(OpenSSL.unwrap(X509_get_serialNumber(x509), "X509_get_serialNumber"), spec.serial),
            "ASN1_INTEGER_set_uint64"
        )
        setTime(X509_getm_notBefore(x509), spec.notBefore, "notBefore")
        setTime(X509_getm_notAfter(x509), spec.notAfter, "notAfter")

        setSubject(x509, commonName: spec.commonName)
        let issuerName = X509_get_subject_name(issuer?.x509 ?? x509)
        OpenSSL.check(X509_set_issuer_name(x509, issuerName), "X509_set_issuer_name")
        OpenSSL.check(X509_set_pubkey(x509, key.pkey), "X509_set_pubkey")

        // The extension context reads the subject's public key (subjectKeyIdentifier)
        // and the issuer's subjectKeyIdentifier (authorityKeyIdentifier); for a
        // self-signed certificate the issuer is the certificate itself.
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.x509 ?? x509, x509, nil, nil, 0)
        OpenSSL.check(X509V3_set_issuer_pkey(&context, signingKey.pkey), "X509V3_set_issuer_pkey")

        addExtension(x509, &context, NID_basic_constraints, spec.isCA ? "critical,CA:TRUE" : "critical,CA:FALSE")
        let keyUsage = spec.keyUsage ?? (spec.isCA ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature")
        if !keyUsage.isEmpty {
            addExtension(x509, &context, NID_key_usage, keyUsage)
        }
        if spec.keyIdentifiers {
            // The subjectKeyIdentifier goes first: a self-signed certificate's
            // authorityKeyIdentifier is copied from it.
            addExtension(x509, &context, NID_subject_key_identifier, "hash")
            addExtension(x509, &context, NID_authority_key_identifier, "keyid:always")
        }
        for oid in spec.markerOIDs {
            addMarker(x509, oid: oid)
        }

        // X509_sign returns the signature length, or 0 on failure.
        guard X509_sign(x509, signingKey.pkey, spec.signatureDigest.md) > 0 else {
            OpenSSL.fail("X509_sign")
        }
        return TestCertificate(owning: x509, key: key, spec: spec)
    }

    /// Base64url without padding (RFC 4648 §5, as JWS uses it).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacing("+", with: "-")
        text = text.replacing("/", with: "_")
        while text.hasSuffix("=") {
            text.removeLast()
        }
        return text
    }

    /// Compact JWS: base64url(headerJSON).base64url(payloadJSON).base64url(signature),
    /// signature = key.signES256(ascii bytes of "h.p"). The JSON strings are used byte-exact (UTF-8).
    ///
    /// `key` must be a P-256 key.
    public static func compactJWS(headerJSON: String, payloadJSON: String, key: TestKey) -> String {
        compactJWS(headerJSON: headerJSON, payloadBytes: Array(payloadJSON.utf8), key: key)
    }

    /// Compact JWS over payload bytes that need not be UTF-8 (BOMs, UTF-16, invalid bytes).
    public static func compactJWS(headerJSON: String, payloadBytes: [UInt8], key: TestKey) -> String {
        let signingInput = base64URL(Array(headerJSON.utf8)) + "." + base64URL(payloadBytes)
        let signature = key.signES256(Array(signingInput.utf8))
        return signingInput + "." + base64URL(signature)
    }

    // MARK: - Building blocks

    /// Sets an `ASN1_TIME` owned by a certificate to `date` (whole seconds).
    private static func setTime(_ time: UnsafeMutablePointer<ASN1_TIME>?, _ date: Date, _ what: String) {
        let target = OpenSSL.unwrap(time, "X509_getm_\(what)")
        let seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        _ = OpenSSL.unwrap(ASN1_TIME_set(target, seconds), "ASN1_TIME_set(\(what))")
    }

    /// Sets the subject to C=US, O=jwsinspect test PKI, CN=`commonName` (in that ASN.1 order).
    private static func setSubject(_ x509: OpaquePointer, commonName: String) {
        let name = OpenSSL.unwrap(X509_NAME_new(), "X509_NAME_new")
        defer { X509_NAME_free(name) }
        for (field, value) in [("C", country), ("O", organization), ("CN", commonName)] {
            let bytes = Array(value.utf8)
            OpenSSL.check(
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0),
                "X509_NAME_add_entry_by_txt(\(field))"
            )
        }
        // X509_set_subject_name copies the name.
        OpenSSL.check(X509_set_subject_name(x509, name), "X509_set_subject_name")
    }

    /// Adds a standard extension built from its OpenSSL configuration string.
    private static func addExtension(
        _ x509: OpaquePointer,
        _ context: UnsafeMutablePointer<X509V3_CTX>,
        _ nid: Int32,
        _ value: String
    ) {
        let name = String(cString: OBJ_nid2sn(nid))
        let ext = OpenSSL.unwrap(X509V3_EXT_conf_nid(nil, context, nid, value), "X509V3_EXT_conf_nid(\(name)=\(value))")
        defer { X509_EXTENSION_free(ext) }
        // X509_add_ext stores a copy of the extension.
        OpenSSL.check(X509_add_ext(x509, ext, -1), "X509_add_ext(\(name))")
    }

    /// Adds a non-critical extension `oid` whose value is DER NULL (`05 00`).
    private static func addMarker(_ x509: OpaquePointer, oid: String) {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSL.fail("OBJ_txt2obj(\"\(oid)\"): markerOIDs must be dotted numeric OIDs")
        }
        defer { ASN1_OBJECT_free(object) }
        let value = OpenSSL.unwrap(ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new")
        defer { ASN1_OCTET_STRING_free(value) }
        let derNull: [UInt8] = [0x05, 0x00]
        OpenSSL.check(ASN1_OCTET_STRING_set(value, derNull, Int32(derNull.count)), "ASN1_OCTET_STRING_set")
        let ext = OpenSSL.unwrap(
            X509_EXTENSION_create_by_OBJ(nil, object, 0, value), "X509_EXTENSION_create_by_OBJ(\(oid))")
        defer { X509_EXTENSION_free(ext) }
        OpenSSL.check(X509_add_ext(x509, ext, -1), "X509_add_ext(\(oid))")
    }

    /// `value` as a JSON string literal (RFC 8259: quotes, backslash and control characters escaped).
    public static func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
