internal import FoundationEssentials

/// A header's `x5c`, decoded and parsed once per distinct header; immutable and shared by
/// every token with that header.
final class ParsedChain: Sendable {
    /// The parsed certificates, in `x5c` order (empty when an entry failed).
    let certificates: [Certificate]
    /// One report per entry.
    let summaries: [CertificateSummary]
    /// The number of entries in `x5c`.
    let count: Int
    /// Why `x5c` is unusable regardless of its length (missing, not an array, undecodable entries).
    let problem: String?
    /// Why `x5c[2]` of a three-entry chain is not a certificate, when it is not: Apple's libraries
    /// count three entries and never read the third, so neither does verification.
    let ignoredRoot: String?
    /// The header's `kid` when it has no `x5c`: a developer-signed token (decided once per header).
    let developerKeyID: JSONValue?

    /// Decodes `x5c` from a header, parsing certificates through `cache`.
    convenience init(header: [String: JSONValue], trustStore: TrustStore, cache: VerificationCache) {
        guard let x5c = header["x5c"] else {
            self.init(
                certificates: [], summaries: [], count: 0, problem: "the header has no x5c certificate chain",
                ignoredRoot: nil, developerKeyID: header["kid"])
            return
        }
        guard case .array(let entries) = x5c else {
            self.init(
                certificates: [], summaries: [], count: 0,
                problem: "x5c is \(x5c.kindDescription), expected an array of base64 certificates", ignoredRoot: nil)
            return
        }
        guard entries.count <= 8 else {
            self.init(
                certificates: [], summaries: [], count: entries.count,
                problem: "x5c has \(entries.count) entries; App Store chains have exactly 3 (leaf, intermediate, root)",
                ignoredRoot: nil)
            return
        }
        var certificates: [Certificate] = []
        var summaries: [CertificateSummary] = []
        var problems: [String] = []
        var ignoredRoot: String?
        for (index, entry) in entries.enumerated() {
            let role = Self.role(index: index, count: entries.count)
            switch Self.parse(entry, trustStore: trustStore, cache: cache) {
            case .success(let certificate):
                certificates.append(certificate)
                summaries.append(
                    CertificateSummary(
                        index: index, role: role, certificate: certificate, trustedRootDERs: trustStore.rootDERs))
            case .failure(let failure) where index == 2 && entries.count == 3:
                ignoredRoot = failure.ignoredRootNote
                summaries.append(CertificateSummary(index: index, role: role, error: failure.summary + " (ignored)"))
            case .failure(let failure):
                problems.append(failure.problem(index: index))
                summaries.append(CertificateSummary(index: index, role: role, error: failure.summary))
            }
        }
        self.init(
            certificates: problems.isEmpty ? certificates : [], summaries: summaries, count: entries.count,
            problem: problems.first, ignoredRoot: problems.isEmpty ? ignoredRoot : nil)
    }

    /// One `x5c` entry parsed through `cache`; an entry whose bytes are those of a trusted root
    /// is that root, already parsed (an App Store chain's third entry, read once per run).
    private static func parse(_ entry: JSONValue, trustStore: TrustStore, cache: VerificationCache) -> Result<
        Certificate, EntryFailure
    > {
        guard case .string(let text) = entry else { return .failure(.notString(entry.kindDescription)) }
        guard let der = standardBase64(text) else { return .failure(.notBase64) }
        if let root = trustStore.root(der: der) { return .success(root) }
        do {
            return .success(try cache.certificate(der: der))
        } catch {
            return .failure(.notCertificate(error, empty: text.isEmpty))
        }
    }

    /// The bytes of `text` when it is standard base64 as RFC 7515 §4.1.6 has `x5c` (RFC 4648
    /// §4): padded to a multiple of four, `=` only as the last one or two characters. Nil for
    /// anything else, as Apple's libraries refuse it (`b64decode(…, validate=True)`): Foundation
    /// alone would take `=` after the padding.
    static func standardBase64(_ text: String) -> [UInt8]? {
        let bytes = text.utf8
        guard bytes.count % 4 == 0 else { return nil }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2,
            bytes.dropLast(padding).allSatisfy({ LegacyReceipt.base64Value($0) != nil })
        else { return nil }
        return Data(base64Encoded: text).map(Array.init)
    }

    private init(
        certificates: [Certificate], summaries: [CertificateSummary], count: Int, problem: String?,
        ignoredRoot: String?, developerKeyID: JSONValue? = nil
    ) {
        self.developerKeyID = developerKeyID
        self.certificates = certificates
        self.summaries = summaries
        self.count = count
        self.problem = problem
        self.ignoredRoot = ignoredRoot
    }

    private static func role(index: Int, count: Int) -> String {
        if count == 1 { return "self-signed certificate" }
        switch index {
        case 0: return "leaf"
        case 1: return "intermediate"
        case 2: return "root (in the message, never trusted)"
        default: return "extra"
        }
    }
}

/// Why an `x5c` entry is not a certificate.
private enum EntryFailure: Error {
    /// Not a JSON string: its kind ("a number").
    case notString(String)
    case notBase64
    case notCertificate(Certificate.ParseError, empty: Bool)

    /// Why the chain is unusable, for an entry verification needs.
    func problem(index: Int) -> String {
        switch self {
        case .notString(let kind): "x5c[\(index)] is \(kind), expected a base64 string"
        case .notBase64: "x5c[\(index)] is not standard base64"
        case .notCertificate(let error, _): "x5c[\(index)] is \(error)"
        }
    }

    /// The entry's line in the chain report.
    var summary: String {
        switch self {
        case .notString: "not a string"
        case .notBase64: "not standard base64"
        case .notCertificate(_, empty: true): "an empty string"
        case .notCertificate(let error, _): error.description
        }
    }

    /// The note on an `x5c[2]` that is not a certificate, which verification ignores.
    var ignoredRootNote: String {
        let what =
            switch self {
            case .notString(let kind): "x5c[2] is \(kind), not a certificate"
            case .notBase64: "x5c[2] is not standard base64, so not a certificate"
            case .notCertificate(_, empty: true): "x5c[2] is an empty string, not a certificate"
            case .notCertificate(.notDER(let detail), _): "x5c[2] is not a DER X.509 certificate (\(detail))"
            case .notCertificate(let error, _): "x5c[2] is not a certificate (\(error))"
            }
        return what + ": ignored, as Apple's libraries ignore it (it is never trusted; only the configured roots are)"
    }
}
