internal import COpenSSL
package import FoundationEssentials
package import JWSInspectCore

/// An X.509 certificate `CertificateIssuer` made (or `MintedCA` read back), parsed by the
/// core's `Certificate`, with its private key.
package struct IssuedCertificate: Sendable {
    /// The certificate, as a verifier parses it.
    package let certificate: Certificate
    /// The certificate's own private key (the one matching its public key).
    package let key: PrivateKey
    /// The specification the certificate was issued from (for one read back: its common
    /// name, validity and whether it is a CA).
    package let spec: CertificateSpec

    package init(certificate: Certificate, key: PrivateKey, spec: CertificateSpec) {
        self.certificate = certificate
        self.key = key
        self.spec = spec
    }

    /// The certificate in DER.
    package var der: [UInt8] { certificate.derBytes }

    /// `-----BEGIN CERTIFICATE-----\n`, base64 in 64-character lines, `\n-----END CERTIFICATE-----\n`.
    package var pem: String { PEM.encode(der, label: "CERTIFICATE") }

    /// Standard base64 (with padding, no line breaks) of `der`, as in a JWS `x5c` entry.
    package var base64: String { Data(der).base64EncodedString() }
}

/// Issues X.509 certificates shaped like Apple's App Store ones, through OpenSSL's C API
/// (`X509_*`, `X509V3_*`, `EVP_*`); no ASN.1 is written by hand.
package enum CertificateIssuer {
    /// Apple's marker extension on App Store receipt-signing leaf certificates.
    package static let leafOID = "1.2.840.113635.100.6.11.1"
    /// Apple's marker extension on the WWDR intermediate certificate.
    package static let intermediateOID = "1.2.840.113635.100.6.2.1"
    /// The organisation (O) of every subject this module issues.
    package static let organization = "jwsinspect test PKI"
    /// The country (C) of every subject this module issues.
    package static let country = "US"

    /// Issues a certificate for `key` signed by `issuer` (nil = self-signed with `key`),
    /// X.509 v3, signed with `X509_sign` and `spec.signatureDigest` (ecdsa-with-SHA256 with an EC
    /// issuer key, sha256WithRSAEncryption with an RSA one, by default).
    ///
    /// The subject is `CN=<commonName>, O=jwsinspect test PKI, C=US` (RFC 4514 order; encoded
    /// as C, O, CN like Apple's certificates), the issuer is the issuer's subject. Extensions,
    /// in order: basicConstraints and keyUsage (both critical, per `spec.isCA`, keyUsage as
    /// `spec.keyUsage` says when set), subjectKeyIdentifier (`hash`) and authorityKeyIdentifier
    /// (`keyid:always`) when `spec.keyIdentifiers`, then each of `spec.markerOIDs` non-critical
    /// with the DER NULL value `05 00`.
    package static func issue(_ spec: CertificateSpec, key: PrivateKey, issuer: IssuedCertificate?) throws(MintError)
        -> IssuedCertificate
    {
        let x509 = try OpenSSLCall.unwrap(X509_new(), "X509_new")
        defer { X509_free(x509) }
        let signingKey = issuer?.key ?? key

        try key.withUnsafeKeyPointer { (subjectKey) throws(MintError) in
            try signingKey.withUnsafeKeyPointer { (signingKeyPointer) throws(MintError) in
                guard let issuerCertificate = issuer?.certificate else {
                    // Self-signed: the certificate is its own issuer.
                    return try fill(x509, spec, subjectKey: subjectKey, signingKey: signingKeyPointer, issuer: x509)
                }
                try issuerCertificate.withUnsafeX509Pointer { (issuerX509) throws(MintError) in
                    try fill(x509, spec, subjectKey: subjectKey, signingKey: signingKeyPointer, issuer: issuerX509)
                }
            }
        }
        let der = try OpenSSLCall.der("i2d_X509") { i2d_X509(x509, $0) }
        do {
            return IssuedCertificate(certificate: try Certificate(derBytes: der), key: key, spec: spec)
        } catch {
            throw MintError("the issued certificate does not parse: \(error)")
        }
    }

    /// Sets `x509`'s fields and extensions as `issue` documents, and signs it with `signingKey`.
    private static func fill(
        _ x509: OpaquePointer, _ spec: CertificateSpec, subjectKey: OpaquePointer,
        signingKey signingKeyPointer: OpaquePointer,
        issuer issuerX509: OpaquePointer
    ) throws(MintError) {
        try OpenSSLCall.check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
        try OpenSSLCall.check(
            ASN1_INTEGER_set_uint64(
                try OpenSSLCall.unwrap(X509_get_serialNumber(x509), "X509_get_serialNumber"), spec.serial),
            "ASN1_INTEGER_set_uint64")
        try setTime(X509_getm_notBefore(x509), spec.notBefore, "notBefore")
        try setTime(X509_getm_notAfter(x509), spec.notAfter, "notAfter")

        try setSubject(x509, commonName: spec.commonName)
        let issuerName = X509_get_subject_name(issuerX509)
        try OpenSSLCall.check(X509_set_issuer_name(x509, issuerName), "X509_set_issuer_name")
        try OpenSSLCall.check(X509_set_pubkey(x509, subjectKey), "X509_set_pubkey")

        // The extension context reads the subject's public key (subjectKeyIdentifier) and the
        // issuer's subjectKeyIdentifier (authorityKeyIdentifier); for a self-signed certificate
        // the issuer is the certificate itself.
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerX509, x509, nil, nil, 0)
        try OpenSSLCall.check(X509V3_set_issuer_pkey(&context, signingKeyPointer), "X509V3_set_issuer_pkey")

        try addExtension(x509, &context, NID_basic_constraints, spec.isCA ? "critical,CA:TRUE" : "critical,CA:FALSE")
        let keyUsage = spec.keyUsage ?? (spec.isCA ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature")
        if !keyUsage.isEmpty {
            try addExtension(x509, &context, NID_key_usage, keyUsage)
        }
        if spec.keyIdentifiers {
            // The subjectKeyIdentifier goes first: a self-signed certificate's
            // authorityKeyIdentifier is copied from it.
            try addExtension(x509, &context, NID_subject_key_identifier, "hash")
            try addExtension(x509, &context, NID_authority_key_identifier, "keyid:always")
        }
        if let usage = spec.extendedKeyUsage {
            try addExtension(x509, &context, NID_ext_key_usage, usage)
        }
        if let url = spec.ocspURL {
            if let problem = checkOCSPURL(url) { throw MintError("the OCSP URL \(url) \(problem)") }
            try addExtension(x509, &context, NID_info_access, "OCSP;URI:\(url)")
        }
        for oid in spec.markerOIDs {
            try addMarker(x509, oid: oid)
        }

        // X509_sign returns the signature length, or 0 on failure.
        guard X509_sign(x509, signingKeyPointer, spec.signatureDigest.md) > 0 else {
            throw OpenSSLCall.failure("X509_sign")
        }
    }

    /// Nil when `url` can be an OCSP responder URL in a certificate: `http://` (or `https://`)
    /// and a host, at most 2,048 characters, printable ASCII without spaces, quotes or commas
    /// (OpenSSL's configuration syntax would read a comma as the start of another entry); else
    /// what is wrong with it.
    package static func checkOCSPURL(_ url: String) -> String? {
        let lowercased = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: lowercased.hasPrefix) else {
            return "is not an http:// URL"
        }
        guard url.utf8.count > scheme.utf8.count, url.utf8.count <= 2_048 else {
            return "needs a host and at most 2,048 characters"
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\"") })
        else { return "may hold printable ASCII only, without spaces, commas or quotes" }
        return nil
    }

    /// A self-signed root CA (serial 1), without marker OIDs.
    package static func root(
        commonName: String, key: PrivateKey, validity: (notBefore: Date, notAfter: Date), keyIdentifiers: Bool = true,
        digest: DigestAlgorithm = .sha256
    ) throws(MintError) -> IssuedCertificate {
        let spec = CertificateSpec(
            commonName: commonName, serial: 1, notBefore: validity.notBefore, notAfter: validity.notAfter, isCA: true,
            keyIdentifiers: keyIdentifiers, signatureDigest: digest)
        return try issue(spec, key: key, issuer: nil)
    }

    /// The intermediate (serial 2, marker `intermediateOID` when `intermediateHasOID`) issued by
    /// `root` for `caValidity`, and the leaf (serial 3, marker `leafOID` when `leafHasOID`) issued
    /// by the intermediate; both signed with `digest`, the leaf with `leafDigest` when given.
    package static func chain(
        under root: IssuedCertificate, intermediateCN: String, intermediateKey: PrivateKey, leafCN: String,
        leafKey: PrivateKey, leafHasOID: Bool, intermediateHasOID: Bool, leafNotBefore: Date, leafNotAfter: Date,
        caValidity: (notBefore: Date, notAfter: Date), keyIdentifiers: Bool = true, digest: DigestAlgorithm = .sha256,
        leafDigest: DigestAlgorithm? = nil, ocspURLs: (intermediate: String?, leaf: String?) = (nil, nil)
    ) throws(MintError) -> (intermediate: IssuedCertificate, leaf: IssuedCertificate) {
        let intermediateSpec = CertificateSpec(
            commonName: intermediateCN, serial: 2, notBefore: caValidity.notBefore, notAfter: caValidity.notAfter,
            isCA: true, markerOIDs: intermediateHasOID ? [intermediateOID] : [], keyIdentifiers: keyIdentifiers,
            signatureDigest: digest, ocspURL: ocspURLs.intermediate)
        let intermediate = try issue(intermediateSpec, key: intermediateKey, issuer: root)
        let leafSpec = CertificateSpec(
            commonName: leafCN, serial: 3, notBefore: leafNotBefore, notAfter: leafNotAfter, isCA: false,
            markerOIDs: leafHasOID ? [leafOID] : [], keyIdentifiers: keyIdentifiers,
            signatureDigest: leafDigest ?? digest, ocspURL: ocspURLs.leaf)
        return (intermediate, try issue(leafSpec, key: leafKey, issuer: intermediate))
    }

    // MARK: - Building blocks

    /// Sets an `ASN1_TIME` owned by a certificate to `date` (whole seconds).
    private static func setTime(_ time: UnsafeMutablePointer<ASN1_TIME>?, _ date: Date, _ what: String)
        throws(MintError)
    {
        let target = try OpenSSLCall.unwrap(time, "X509_getm_\(what)")
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.magnitude < 1e15 else { throw MintError("the \(what) date is out of range") }
        _ = try OpenSSLCall.unwrap(ASN1_TIME_set(target, time_t(seconds)), "ASN1_TIME_set(\(what))")
    }

    /// Sets the subject to C=US, O=jwsinspect test PKI, CN=`commonName` (in that ASN.1 order).
    private static func setSubject(_ x509: OpaquePointer, commonName: String) throws(MintError) {
        let name = try OpenSSLCall.unwrap(X509_NAME_new(), "X509_NAME_new")
        defer { X509_NAME_free(name) }
        for (field, value) in [("C", country), ("O", organization), ("CN", commonName)] {
            let bytes = Array(value.utf8)
            try OpenSSLCall.check(
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0),
                "X509_NAME_add_entry_by_txt(\(field))")
        }
        // X509_set_subject_name copies the name.
        try OpenSSLCall.check(X509_set_subject_name(x509, name), "X509_set_subject_name")
    }

    /// Adds a standard extension built from its OpenSSL configuration string.
    private static func addExtension(
        _ x509: OpaquePointer, _ context: UnsafeMutablePointer<X509V3_CTX>, _ nid: Int32, _ value: String
    ) throws(MintError) {
        let name = String(cString: OBJ_nid2sn(nid))
        let ext = try OpenSSLCall.unwrap(
            X509V3_EXT_conf_nid(nil, context, nid, value), "X509V3_EXT_conf_nid(\(name)=\(value))")
        defer { X509_EXTENSION_free(ext) }
        // X509_add_ext stores a copy of the extension.
        try OpenSSLCall.check(X509_add_ext(x509, ext, -1), "X509_add_ext(\(name))")
    }

    /// Adds a non-critical extension `oid` whose value is DER NULL (`05 00`).
    private static func addMarker(_ x509: OpaquePointer, oid: String) throws(MintError) {
        guard let object = OBJ_txt2obj(oid, 1) else {
            throw OpenSSLCall.failure("OBJ_txt2obj(\"\(oid)\"): marker OIDs must be dotted numeric OIDs")
        }
        defer { ASN1_OBJECT_free(object) }
        let value = try OpenSSLCall.unwrap(ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new")
        defer { ASN1_OCTET_STRING_free(value) }
        let derNull: [UInt8] = [0x05, 0x00]
        try OpenSSLCall.check(ASN1_OCTET_STRING_set(value, derNull, Int32(derNull.count)), "ASN1_OCTET_STRING_set")
        let ext = try OpenSSLCall.unwrap(
            X509_EXTENSION_create_by_OBJ(nil, object, 0, value), "X509_EXTENSION_create_by_OBJ(\(oid))")
        defer { X509_EXTENSION_free(ext) }
        try OpenSSLCall.check(X509_add_ext(x509, ext, -1), "X509_add_ext(\(oid))")
    }
}
