internal import COpenSSL
package import FoundationEssentials

/// An X.509 certificate parsed by OpenSSL (an owned `X509*`) with its DER bytes.
///
/// `@unchecked Sendable`: never mutated after init; OpenSSL only reads it
/// (its internal caches are set up under OpenSSL's own locks).
package final class Certificate: @unchecked Sendable {
    /// The owned `X509`; only `withUnsafeX509Pointer` hands it out, for the call it is made for.
    private let pointer: OpaquePointer
    /// The certificate exactly as encoded (DER).
    package let derBytes: [UInt8]

    /// Why DER bytes are not a certificate.
    package enum ParseError: Error, CustomStringConvertible, Sendable {
        case notDER(String)
        case trailingBytes(Int)
        /// A PEM file that is not one or more certificates.
        case notPEMCertificates(String)

        package var description: String {
            switch self {
            case .notDER(let detail): "not a DER X.509 certificate (\(detail))"
            case .trailingBytes(let count): "\(count) bytes follow the DER certificate"
            case .notPEMCertificates(let detail): "a PEM file \(detail)"
            }
        }
    }

    /// Calls `body` with the certificate's `X509*`, for OpenSSL calls (`X509_cmp`,
    /// `X509_STORE_CTX_init`, `CMS_add1_signer`). The pointer is valid only while `body` runs
    /// (the certificate is kept alive until it returns) and must not escape it, except into an
    /// OpenSSL object that takes its own reference, or one used only while the caller keeps the
    /// certificate alive (`withExtendedLifetime`: a stack of untrusted certificates).
    package func withUnsafeX509Pointer<Result, Failure: Error>(
        _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        defer { withExtendedLifetime(self) {} }
        return try body(pointer)
    }

    /// Parses one DER certificate; trailing bytes are refused.
    package init(derBytes: [UInt8]) throws(ParseError) {
        let result: (OpaquePointer?, Int) = derBytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            let consumed = cursor.map { $0 - buffer.baseAddress! } ?? 0
            return (x509, consumed)
        }
        guard let x509 = result.0 else {
            throw .notDER(OpenSSLError.describe(or: "d2i_X509 failed"))
        }
        guard result.1 == derBytes.count else {
            X509_free(x509)
            throw .trailingBytes(derBytes.count - result.1)
        }
        self.pointer = x509
        self.derBytes = derBytes
    }

    /// A certificate OpenSSL has already parsed (one embedded in a CMS container): its own
    /// reference to `x509` (`X509_up_ref`) and its DER, without parsing it a second time.
    ///
    /// - Returns: nil when OpenSSL cannot re-encode it.
    init?(sharing x509: OpaquePointer) {
        guard let der = Self.der(of: x509), X509_up_ref(x509) == 1 else { return nil }
        self.pointer = x509
        self.derBytes = der
    }

    /// Every certificate of a `.cer`/`.pem` file: one DER certificate, or each `CERTIFICATE`
    /// block of a PEM file, in order (Apple ships roots one per file; people concatenate them).
    /// A PEM file whose blocks are not all certificates OpenSSL reads, or that has none, is refused.
    package static func all(fileBytes: [UInt8]) throws(ParseError) -> [Certificate] {
        let blocks = fileBytes.ranges(of: Array("-----BEGIN CERTIFICATE-----".utf8)).count
        guard blocks > 0 else {
            if fileBytes.firstRange(of: Array("-----BEGIN ".utf8)) != nil {
                throw .notPEMCertificates("without a CERTIFICATE block")
            }
            return [try Certificate(derBytes: fileBytes)]
        }
        guard let bio = fileBytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32(clamping: $0.count)) }) else {
            throw .notPEMCertificates("that OpenSSL cannot open (BIO_new_mem_buf failed)")
        }
        defer { BIO_free(bio) }
        var certificates: [Certificate] = []
        while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
            defer { X509_free(x509) }
            // Kept as OpenSSL parsed it, not parsed a second time from its DER.
            guard let certificate = Certificate(sharing: x509) else { break }
            certificates.append(certificate)
        }
        OpenSSLError.drain()
        guard certificates.count == blocks else {
            throw .notPEMCertificates(
                "whose CERTIFICATE block \(certificates.count + 1) of \(blocks) is not a readable certificate")
        }
        return certificates
    }

    deinit {
        X509_free(pointer)
    }

    /// The DER encoding of an OpenSSL certificate.
    private static func der(of x509: OpaquePointer) -> [UInt8]? {
        DER.encode { i2d_X509(x509, $0) }
    }

    // MARK: Fields

    /// The subject as "CN=…, OU=…, O=…, C=…" (most specific first).
    package var subject: String { names.subject }
    /// The issuer, formatted like `subject`.
    package var issuer: String { Self.describe(name: X509_get_issuer_name(pointer)) }
    /// The subject's common name, if any.
    package var commonName: String? { names.commonName }

    /// The subject and its common name, read from the certificate the first time they are asked
    /// for and kept (a run asks them of one certificate for every token or receipt it signs).
    private var names: (subject: String, commonName: String?) {
        if let known = madeNames.withLock({ $0 }) { return known }
        let name = X509_get_subject_name(pointer)
        let made = (Self.describe(name: name), Self.entries(of: name).first { $0.0 == "CN" }?.1)
        madeNames.withLock { $0 = made }
        return made
    }
    private let madeNames = Locked<(subject: String, commonName: String?)?>(nil)

    /// True when subject and issuer are the same name (a root or a self-signed certificate).
    package var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(pointer), X509_get_issuer_name(pointer)) == 0
    }

    /// The serial number in uppercase hexadecimal.
    package var serialHex: String {
        guard let bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(pointer), nil) else { return "?" }
        defer { BN_free(bn) }
        guard let hex = BN_bn2hex(bn) else { return "?" }
        defer { COpenSSL_free(hex) }
        return String(cString: hex)
    }

    /// Start of the validity period.
    package var notBefore: Date? { Self.date(X509_get0_notBefore(pointer)) }
    /// End of the validity period.
    package var notAfter: Date? { Self.date(X509_get0_notAfter(pointer)) }

    /// SHA-256 of the DER bytes, lowercase hex without separators.
    package var sha256Fingerprint: String { Digest.sha256(derBytes).hexString() }

    /// The subject public key, or nil when OpenSSL cannot decode it.
    package var publicKey: PublicKey? {
        guard let key = X509_get_pubkey(pointer) else {
            OpenSSLError.drain()
            return nil
        }
        return PublicKey(taking: key)
    }

    /// Every extension's OID in dotted numeric form, in certificate order.
    package var extensionOIDs: [String] {
        let count = X509_get_ext_count(pointer)
        guard count > 0 else { return [] }
        return (0..<count).compactMap { index in
            guard let ext = X509_get_ext(pointer, index), let object = X509_EXTENSION_get_object(ext) else {
                return nil
            }
            return Self.dottedOID(object)
        }
    }

    /// The value (the OCTET STRING's contents) of the extension with `oid`, or nil when absent.
    ///
    /// - Parameter oid: dotted numeric OID such as "1.2.840.113635.100.6.11.1".
    package func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSLError.drain()
            return nil
        }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(pointer, object, -1)
        guard index >= 0, let ext = X509_get_ext(pointer, index), let data = X509_EXTENSION_get_data(ext) else {
            return nil
        }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    // MARK: Helpers

    static func dottedOID(_ object: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0, Int(length) < buffer.count else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func entries(of name: OpaquePointer?) -> [(String, String)] {
        guard let name else { return [] }
        let count = X509_NAME_entry_count(name)
        guard count > 0 else { return [] }
        return (0..<count).compactMap { index in
            guard let entry = X509_NAME_get_entry(name, index),
                let object = X509_NAME_ENTRY_get_object(entry),
                let data = X509_NAME_ENTRY_get_data(entry)
            else { return nil }
            let nid = OBJ_obj2nid(object)
            let key: String
            if nid != NID_undef, let short = OBJ_nid2sn(nid) {
                key = String(cString: short)
            } else {
                key = dottedOID(object) ?? "?"
            }
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            guard length >= 0, let utf8 else {
                OpenSSLError.drain()
                return (key, "?")
            }
            defer { COpenSSL_free(utf8) }
            return (key, String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self))
        }
    }

    private static func describe(name: OpaquePointer?) -> String {
        entries(of: name).map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
    }

    /// An ASN.1 time (UTCTime or GeneralizedTime) as a date, nil when it does not read.
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            OpenSSLError.drain()
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
