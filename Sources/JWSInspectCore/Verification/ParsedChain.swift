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

    /// Decodes `x5c` from a header, parsing certificates through `cache`.
    convenience init(header: [String: JSONValue], trustStore: TrustStore, cache: VerificationCache) {
        guard let x5c = header["x5c"] else {
            self.init(certificates: [], summaries: [], count: 0, problem: "the header has no x5c certificate chain")
            return
        }
        guard case .array(let entries) = x5c else {
            self.init(certificates: [], summaries: [], count: 0,
                      problem: "x5c is \(x5c.kindDescription), expected an array of base64 certificates")
            return
        }
        guard entries.count <= 8 else {
            self.init(certificates: [], summaries: [], count: entries.count,
                      problem: "x5c has \(entries.count) entries; App Store chains have exactly 3 (leaf, intermediate, root)")
            return
        }
        var certificates: [Certificate] = []
        var summaries: [CertificateSummary] = []
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            let role = Self.role(index: index, count: entries.count)
            guard case .string(let text) = entry else {
                problems.append("x5c[\(index)] is \(entry.kindDescription), expected a base64 string")
                summaries.append(CertificateSummary(index: index, role: role, error: "not a string"))
                continue
            }
            guard let data = Data(base64Encoded: text) else {
                problems.append("x5c[\(index)] is not standard base64")
                summaries.append(CertificateSummary(index: index, role: role, error: "not standard base64"))
                continue
            }
            do {
                let certificate = try cache.certificate(der: Array(data))
                certificates.append(certificate)
                summaries.append(CertificateSummary(index: index, role: role, certificate: certificate, trustedRoots: trustStore.roots))
            } catch {
                problems.append("x5c[\(index)] is \(error)")
                summaries.append(CertificateSummary(index: index, role: role, error: error.description))
            }
        }
        self.init(certificates: problems.isEmpty ? certificates : [], summaries: summaries, count: entries.count,
                  problem: problems.first)
    }

    private init(certificates: [Certificate], summaries: [CertificateSummary], count: Int, problem: String?) {
        self.certificates = certificates
        self.summaries = summaries
        self.count = count
        self.problem = problem
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
