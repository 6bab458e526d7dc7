internal import COpenSSL

/// A CMS (PKCS#7) SignedData container parsed by OpenSSL, as a legacy App Store receipt is:
/// its encapsulated content, its certificates, its one signer and whether the signature over
/// the content verifies.
///
/// DER and BER (indefinite lengths, as StoreKit Testing in Xcode writes receipts) are read by
/// `d2i_CMS_bio`. The signature is checked once, in init, with `CMS_verify` (which records the
/// signer's certificate inside the container, a mutation), so the value is immutable afterwards.
/// `@unchecked Sendable`: nothing is mutated after init, and OpenSSL only reads the container.
package final class CMSSignedData: @unchecked Sendable {
    /// The largest container read, in bytes (4 MiB): a receipt with thousands of in-app entries
    /// is a few hundred kilobytes.
    package static let maximumSize = 4 * 1024 * 1024

    /// Why bytes are not a usable SignedData container.
    package enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Larger than `maximumSize` (size, limit, in bytes).
        case tooLarge(size: Int, limit: Int)
        /// OpenSSL could not decode a CMS ContentInfo; OpenSSL's reason.
        case notCMS(String)
        /// Bytes follow the container.
        case trailingBytes(Int)
        /// The ContentInfo is not signedData; its content type (short name or dotted OID).
        case notSignedData(String)
        /// The signed content is not `data`; its content type.
        case notDataContent(String)
        /// The container holds no encapsulated content (a detached signature).
        case noContent
        /// The number of signers is not one.
        case signerCount(Int)
        /// An embedded certificate OpenSSL cannot re-encode or parse.
        case certificate(String)
        /// None of the embedded certificates is the signer's.
        case signerCertificateMissing

        package var description: String {
            switch self {
            case .tooLarge(let size, let limit):
                "not a receipt: \(size) bytes exceed the limit of \(limit) bytes for a PKCS#7 container"
            case .notCMS(let detail): "not a valid receipt: not a PKCS#7 (CMS) container (\(detail))"
            case .trailingBytes(let count): "not a valid receipt: \(count) bytes follow the PKCS#7 container"
            case .notSignedData(let type): "not a valid receipt: a PKCS#7 container of type \(type), not signedData"
            case .notDataContent(let type):
                "not a valid receipt: the signed content is of type \(type), not data"
            case .noContent: "not a valid receipt: the PKCS#7 container holds no content (detached signature)"
            case .signerCount(let count): "not a valid receipt: \(count) signers, expected one"
            case .certificate(let detail): "not a valid receipt: an embedded certificate is unreadable (\(detail))"
            case .signerCertificateMissing:
                "not a valid receipt: the signer's certificate is not among the embedded certificates"
            }
        }
    }

    /// Why the signature over the content does not verify.
    package struct SignatureError: Error, Sendable, Equatable, CustomStringConvertible {
        /// OpenSSL's reason, one line (its error queue, oldest first).
        package let reason: String

        package var description: String { "the PKCS#7 signature over the receipt does not verify (\(reason))" }
    }

    private let pointer: OpaquePointer
    /// The encapsulated content (for a receipt: the DER of its SET of attributes).
    package let content: [UInt8]
    /// The embedded certificates, parsed (shared by every container of a run that embeds the
    /// same ones, when read through a `CertificateSetStore`).
    let embedded: EmbeddedCertificates
    /// The signer's certificate (one of `certificates`).
    package let signerCertificate: Certificate
    /// The signer's certificate's position in `certificates`.
    let signerIndex: Int
    /// The signer's digest algorithm as OpenSSL names it, lowercased ("sha1", "sha256").
    package let digestAlgorithm: String
    /// The signer's signature algorithm as OpenSSL names it ("rsaEncryption", "RSA-SHA256").
    package let signatureAlgorithm: String
    /// The digests the signer names, as OpenSSL NIDs: its digestAlgorithm's, then the one its
    /// signatureAlgorithm implies when that names a digest too (`md5WithRSAEncryption`, found
    /// with `OBJ_find_sigid_algs`; OpenSSL hashes with the digestAlgorithm's either way).
    private let digestNIDs: [Int32]
    /// Nil when the signature verified; else why not.
    private let signatureError: SignatureError?

    /// The embedded certificates, in container order.
    package var certificates: [Certificate] { embedded.certificates }

    /// Parses a DER or BER SignedData container with data content and one signer, and checks
    /// its signature.
    ///
    /// - Throws: `ParseError` when the bytes are too large, not CMS, not signedData with data
    ///   content, not one signer, or the signer's certificate is not embedded. A signature that
    ///   does not verify is not thrown here: `verifySignature()` reports it.
    package convenience init(bytes: [UInt8]) throws(ParseError) {
        try self.init(bytes: bytes, certificateSets: nil)
    }

    /// Parses a container as `init(bytes:)` does, its certificates through `certificateSets`:
    /// a set of certificates seen before is not parsed again (OpenSSL 3 spends most of a
    /// receipt's time decoding its certificates' public keys).
    ///
    /// The container is first read without parsing its certificates (OpenSSL's ASN.1 templates,
    /// `COpenSSL_ReceiptContentInfo`), and the container without them is what OpenSSL's CMS code
    /// then decodes and verifies, with the signer's certificate from the set. Whenever that way
    /// does not give a container (anything unusual, any error), the bytes are read as
    /// `init(bytes:)` reads them, so a container reads the same, and fails with the same error,
    /// either way.
    convenience init(bytes: [UInt8], certificateSets: (any CertificateSetStore)?) throws(ParseError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(size: bytes.count, limit: Self.maximumSize) }
        guard !bytes.isEmpty else { throw .notCMS("no bytes") }
        if let certificateSets, let parts = Self.partsSkippingCertificates(bytes, certificateSets: certificateSets) {
            self.init(parts)
        } else {
            self.init(try Self.parts(bytes))
        }
    }

    /// What a container is made of, decoded and checked.
    private struct Parts {
        let pointer: OpaquePointer
        let content: [UInt8]
        let embedded: EmbeddedCertificates
        let signerIndex: Int
        let digestAlgorithm: String
        let signatureAlgorithm: String
        let digestNIDs: [Int32]
        let signatureError: SignatureError?
    }

    private init(_ parts: Parts) {
        pointer = parts.pointer
        content = parts.content
        embedded = parts.embedded
        signerIndex = parts.signerIndex
        signerCertificate = parts.embedded.certificates[parts.signerIndex]
        digestAlgorithm = parts.digestAlgorithm
        signatureAlgorithm = parts.signatureAlgorithm
        digestNIDs = parts.digestNIDs
        signatureError = parts.signatureError
    }

    /// The container read whole by `d2i_CMS_bio`, its certificates parsed with it.
    private static func parts(_ bytes: [UInt8]) throws(ParseError) -> Parts {
        let decoded: (OpaquePointer?, Int) = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return (nil, 0) }
            defer { BIO_free(bio) }
            let cms = d2i_CMS_bio(bio, nil)
            return (cms, Int(BIO_ctrl_pending(bio)))
        }
        guard let cms = decoded.0 else { throw .notCMS(OpenSSLError.describe(or: "d2i_CMS_bio failed")) }
        OpenSSLError.drain()
        guard decoded.1 == 0 else {
            CMS_ContentInfo_free(cms)
            throw .trailingBytes(decoded.1)
        }
        return try parts(cms) { () throws(ParseError) in try EmbeddedCertificates(embeddedCertificates(cms)) }
    }

    /// The container read without parsing its certificates, which come from `certificateSets`;
    /// nil whenever it cannot be read so (`init(bytes:certificateSets:)`).
    private static func partsSkippingCertificates(_ bytes: [UInt8], certificateSets: any CertificateSetStore)
        -> Parts?
    {
        defer { OpenSSLError.drain() }
        return bytes.withUnsafeBufferPointer { buffer -> Parts? in
            var consumed = 0
            guard let info = COpenSSL_ReceiptContentInfo_d2i(buffer.baseAddress, buffer.count, &consumed) else {
                return nil
            }
            defer { COpenSSL_ReceiptContentInfo_free(info) }
            let count = Int(COpenSSL_ReceiptContentInfo_certificate_count(info))
            guard consumed == buffer.count, COpenSSL_ReceiptContentInfo_type(info) == NID_pkcs7_signed,
                COpenSSL_ReceiptContentInfo_has_crls(info) == 0, count > 0
            else { return nil }
            // The certificates' encodings one after the other: each is a whole TLV, so the bytes
            // tell the set, and its order, apart from every other.
            var encoded: [UInt8] = []
            var ends: [Int] = []
            for index in 0..<count {
                var length: Int32 = 0
                guard let start = COpenSSL_ReceiptContentInfo_certificate(info, Int32(index), &length), length > 0
                else { return nil }
                encoded.append(contentsOf: UnsafeBufferPointer(start: start, count: Int(length)))
                ends.append(encoded.count)
            }
            guard
                let embedded = certificateSets.certificateSet(
                    encoded: encoded,
                    parse: {
                        var certificates: [Certificate] = []
                        var start = 0
                        for end in ends {
                            guard let certificate = try? Certificate(derBytes: Array(encoded[start..<end])) else {
                                return nil
                            }
                            certificates.append(certificate)
                            start = end
                        }
                        return EmbeddedCertificates(certificates)
                    }),
                let cms = COpenSSL_ReceiptContentInfo_without_certificates(info)
            else { return nil }
            return try? parts(cms) { () throws(ParseError) in embedded }
        }
    }

    /// The checks every container passes, on a decoded container (owned: freed unless returned)
    /// whose certificates `certificates` gives.
    private static func parts(
        _ cms: OpaquePointer, certificates: () throws(ParseError) -> EmbeddedCertificates
    ) throws(ParseError) -> Parts {
        var owned: OpaquePointer? = cms
        defer { if let owned { CMS_ContentInfo_free(owned) } }
        let type = CMS_get0_type(cms)
        guard OBJ_obj2nid(type) == NID_pkcs7_signed else { throw .notSignedData(Self.name(type)) }
        let contentType = CMS_get0_eContentType(cms)
        guard OBJ_obj2nid(contentType) == NID_pkcs7_data else { throw .notDataContent(Self.name(contentType)) }
        guard let slot = CMS_get0_content(cms), let octets = slot.pointee else { throw .noContent }
        let content = Self.bytes(of: UnsafePointer(octets))
        let signers = CMS_get0_SignerInfos(cms)
        let signerCount = signers.map { Int(COpenSSL_sk_CMS_SignerInfo_num($0)) } ?? 0
        guard let signers, signerCount == 1, let signer = COpenSSL_sk_CMS_SignerInfo_value(signers, 0) else {
            throw .signerCount(signerCount)
        }
        let embedded = try certificates()
        guard
            let signerIndex = embedded.certificates.firstIndex(where: {
                $0.withUnsafeX509Pointer { CMS_SignerInfo_cert_cmp(signer, $0) } == 0
            })
        else { throw .signerCertificateMissing }
        let signatureError = Self.verify(cms, signer: embedded.certificates[signerIndex])
        owned = nil
        return Parts(
            pointer: cms, content: content, embedded: embedded, signerIndex: signerIndex,
            digestAlgorithm: Self.algorithmName(signer, digest: true).lowercased(),
            signatureAlgorithm: Self.algorithmName(signer, digest: false), digestNIDs: Self.digestNIDs(signer),
            signatureError: signatureError)
    }

    deinit {
        CMS_ContentInfo_free(pointer)
    }

    /// Checks the signature over the content with the signer's embedded certificate.
    ///
    /// Only the signature: the signer's certificate is not validated here (see
    /// `ReceiptChain.validate`). Checked once, in init, with `CMS_verify` and
    /// `CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY` (the content's bytes as they are, no MIME
    /// canonicalisation).
    ///
    /// - Throws: `SignatureError` with OpenSSL's reason when a byte of the content or of the
    ///   signature has changed, or the signer's key does not match.
    package func verifySignature() throws(SignatureError) {
        if let signatureError { throw signatureError }
    }

    /// Whether the signature over the content verifies.
    package var signatureVerifies: Bool { signatureError == nil }

    /// The signer's digests that `floor` does not accept, by OpenSSL's short names ("MD5"), the
    /// digestAlgorithm's first; empty when it accepts them all.
    package func digests(refusedBy floor: TrustStore.AlgorithmFloor) -> [String] {
        digestNIDs.filter { !floor.accepts(digestNID: $0) }.map { nid in
            nid == NID_undef ? "an unknown digest" : OBJ_nid2sn(nid).map { String(cString: $0) } ?? "NID \(nid)"
        }
    }

    // MARK: Helpers

    /// Runs `CMS_verify` with `signer` as the only certificate offered and no chain check.
    private static func verify(_ cms: OpaquePointer, signer: Certificate) -> SignatureError? {
        guard let certs = COpenSSL_sk_X509_new_null() else { preconditionFailure("sk_X509_new_null: out of memory") }
        defer { COpenSSL_sk_X509_free(certs) }
        return withExtendedLifetime(signer) {
            // The stack borrows the pointer; the wrapper owns it, alive until the closure returns.
            _ = signer.withUnsafeX509Pointer { COpenSSL_sk_X509_push(certs, $0) }
            OpenSSLError.drain()
            let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)
            guard CMS_verify(cms, certs, nil, nil, nil, flags) == 1 else {
                return SignatureError(reason: OpenSSLError.describe(or: "CMS_verify failed"))
            }
            OpenSSLError.drain()
            return nil
        }
    }

    /// The embedded certificates as `Certificate` values, sharing OpenSSL's parsed `X509`
    /// objects (each decoded once, by `d2i_CMS_bio`).
    private static func embeddedCertificates(_ cms: OpaquePointer) throws(ParseError) -> [Certificate] {
        guard let stack = CMS_get1_certs(cms) else {
            OpenSSLError.drain()
            return []
        }
        defer { COpenSSL_sk_X509_pop_free(stack) }
        var certificates: [Certificate] = []
        for index in 0..<COpenSSL_sk_X509_num(stack) {
            guard let x509 = COpenSSL_sk_X509_value(stack, index) else { continue }
            guard let certificate = Certificate(sharing: x509) else {
                throw .certificate(OpenSSLError.describe(or: "i2d_X509 failed"))
            }
            certificates.append(certificate)
        }
        return certificates
    }

    /// The short name of the signer's digest ("SHA256") or signature algorithm
    /// ("rsaEncryption"), or its dotted OID.
    private static func algorithmName(_ signer: OpaquePointer, digest: Bool) -> String {
        var algorithm: UnsafeMutablePointer<X509_ALGOR>?
        if digest {
            CMS_SignerInfo_get0_algs(signer, nil, nil, &algorithm, nil)
        } else {
            CMS_SignerInfo_get0_algs(signer, nil, nil, nil, &algorithm)
        }
        guard let algorithm else { return "?" }
        var object: OpaquePointer?
        X509_ALGOR_get0(&object, nil, nil, algorithm)
        return name(object)
    }

    /// The signer's digest NIDs (see `digestNIDs`): NID_undef for a digestAlgorithm OpenSSL does
    /// not know, so that it is refused.
    private static func digestNIDs(_ signer: OpaquePointer) -> [Int32] {
        var digest: UnsafeMutablePointer<X509_ALGOR>?
        var signature: UnsafeMutablePointer<X509_ALGOR>?
        CMS_SignerInfo_get0_algs(signer, nil, nil, &digest, &signature)
        var nids = [nid(of: digest)]
        var implied = NID_undef
        if case let nid = nid(of: signature), nid != NID_undef, OBJ_find_sigid_algs(nid, &implied, nil) == 1,
            implied != NID_undef
        {
            nids.append(implied)
        }
        return nids
    }

    /// The NID of an algorithm identifier's OID (NID_undef when absent or unknown).
    private static func nid(of algorithm: UnsafeMutablePointer<X509_ALGOR>?) -> Int32 {
        guard let algorithm else { return NID_undef }
        var object: OpaquePointer?
        X509_ALGOR_get0(&object, nil, nil, algorithm)
        return object.map { OBJ_obj2nid($0) } ?? NID_undef
    }

    /// An object's short name ("SHA256", "pkcs7-data"), or its dotted OID when OpenSSL has none.
    private static func name(_ object: OpaquePointer?) -> String {
        guard let object else { return "?" }
        let nid = OBJ_obj2nid(object)
        if nid != NID_undef, let short = OBJ_nid2sn(nid) { return String(cString: short) }
        return Certificate.dottedOID(object) ?? "?"
    }

    /// The bytes of an ASN1_STRING (OCTET STRING, UTF8String…).
    static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }
}

/// The certificates a container embeds, parsed once and shared by every container of a run
/// that embeds the same bytes, with what has been learned about them (`ReceiptChain`'s
/// validations, kept by time window). Immutable but for that record, which has its own lock.
final class EmbeddedCertificates: Sendable {
    /// In container order; every element a distinct object, even where two embed the same bytes.
    let certificates: [Certificate]
    /// The validations of these certificates remembered (`ReceiptChain.validate`), newest last.
    let validations = Locked<[ReceiptChain.Remembered]>([])

    /// The certificate summaries receipts show, by what they depend on.
    private let madeSummaries = Locked<[(key: SummaryKey, summaries: [CertificateSummary])]>([])

    init(_ certificates: [Certificate]) {
        self.certificates = certificates
    }

    /// What a receipt's certificate summaries depend on: the roots, the certificates in the
    /// order shown, how many make the validated path, and whether Xcode signed. Roots and
    /// certificates are compared by identity (and held, so that it stays theirs).
    struct SummaryKey: Equatable {
        let store: TrustStore
        let order: [Certificate]
        let pathCount: Int?
        let isXcode: Bool

        static func == (left: Self, right: Self) -> Bool {
            left.store === right.store && left.order.count == right.order.count
                && zip(left.order, right.order).allSatisfy { $0 === $1 } && left.pathCount == right.pathCount
                && left.isXcode == right.isXcode
        }
    }

    /// The summaries for `key`, made by `make` the first time (a few kept).
    func summaries(for key: SummaryKey, make: () -> [CertificateSummary]) -> [CertificateSummary] {
        if let known = madeSummaries.withLock({ $0.last { $0.key == key }?.summaries }) { return known }
        let made = make()
        madeSummaries.withLock { list in
            if list.count >= ReceiptChain.Remembered.limit { list.removeFirst() }
            list.append((key, made))
        }
        return made
    }
}

/// Where containers find certificate sets already parsed (a run's `VerificationCache`).
protocol CertificateSetStore: Sendable {
    /// The set whose certificates' encodings, one after the other, are `encoded`: the one kept,
    /// else `parse()`'s (kept when it fits), or nil when `parse` gives none.
    func certificateSet(encoded: [UInt8], parse: () -> EmbeddedCertificates?) -> EmbeddedCertificates?
}
