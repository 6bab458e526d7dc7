internal import FoundationEssentials

/// `revocation`: no certificate of the validated path below the trusted root is revoked, as the
/// `RevocationRequester` given in `VerificationOptions.revocation` answers now. Chosen only when a
/// requester is given; asked only for a path that validated at the check time, after the
/// signature (a token whose signature fails is not worth a request).
///
/// Time-sensitive: its answer holds for the moment it was asked, not for the check time, so the
/// verdict says so ("revocation checked now") and nothing keeps it beyond the token it was made
/// for (`VerificationCache` keeps only what depends on the certificates and the check time).
///
/// Fails closed: a revoked certificate fails the chain (`invalid-chain`, exit 2); an answer that
/// cannot be had fails with its own, retryable status (`revocation-unavailable`, exit 75), never
/// taken as good; a certificate naming no responder is noted, or fails the chain when a check is
/// required (`requireCheck`).
struct RevocationPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("revocation", failing: .invalidChain, timeSensitive: true)
    /// The same check failing because no answer could be had: asking again later may succeed.
    static let unavailable = Check.Name("revocation", failing: .revocationUnavailable, timeSensitive: true)
    static let payloadMembers: [String] = []

    let requester: any RevocationRequester
    /// A certificate that names no responder fails the chain instead of being noted.
    let requireCheck: Bool
    /// The moment revocation is decided at: the time of inspection, whatever the check time.
    let now: Date
    /// "now (2026-…)".
    let nowText: String

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard let path = report.validatedPath, !report.hasFailure else { return .none }
        let (check, notes) = decide(path: path)
        return .several(checks: check.map { [$0] } ?? [], notes: notes)
    }

    /// The check for a validated `path` (leaf first, ending at the trusted root), for every
    /// envelope: each certificate below the root is asked about by its issuer, the leaf first.
    ///
    /// - Returns: the check, nil when nothing was asked (a path of the trusted root alone, or
    ///   certificates that name no responder), and the notes saying so.
    func decide(path: [Certificate]) -> (Check?, notes: [String]) {
        guard path.count > 1 else {
            return (nil, ["revocation not checked: the one certificate is itself a trusted root, nothing issued it"])
        }
        var good: [NotRevoked.Answer] = []
        var notes: [String] = []
        for index in 0..<(path.count - 1) {
            let certificate = path[index]
            switch requester.status(of: certificate, issuedBy: path[index + 1], now: now) {
            case .good(let responder, let thisUpdate):
                good.append(
                    .init(certificate: certificate, isLeaf: index == 0, responder: responder, thisUpdate: thisUpdate))
            case .revoked(let responder, let date, let reason):
                return (
                    Check(
                        Self.name, passed: false,
                        "\(Self.role(certificate, isLeaf: index == 0)) was revoked \(ISO8601.string(date))"
                            + "\(reason.map { " (\($0))" } ?? ""), says \(responder), asked \(nowText)"),
                    notes
                )
            case .unavailable(let why):
                return (
                    Check(
                        Self.unavailable, passed: false,
                        "could not check revocation of \(Self.role(certificate, isLeaf: index == 0)): \(why); try again"
                    ),
                    notes
                )
            case .noResponder where requireCheck:
                return (
                    Check(
                        Self.name, passed: false,
                        "\(Self.role(certificate, isLeaf: index == 0)) names no OCSP responder, and a revocation check "
                            + "is required"),
                    notes
                )
            case .noResponder:
                notes.append(
                    "\(Self.role(certificate, isLeaf: index == 0)) names no OCSP responder: its revocation was not checked"
                )
            }
        }
        guard !good.isEmpty else { return (nil, notes) }
        return (Check(Self.name, passed: true, NotRevoked(answers: good, nowText: nowText)), notes)
    }

    /// "the leaf "…"", "the intermediate "…"".
    static func role(_ certificate: Certificate, isLeaf: Bool) -> String {
        (isLeaf ? "the leaf " : "the intermediate ") + certificate.quotedName
    }

    /// A passed check's detail, put into words only when read (a `-q` batch never formats it):
    /// "not revoked: the leaf "…" (responder, thisUpdate …), …, asked now (…)".
    struct NotRevoked: CheckDetail {
        struct Answer: Sendable {
            let certificate: Certificate
            let isLeaf: Bool
            let responder: String
            let thisUpdate: Date
        }
        let answers: [Answer]
        let nowText: String

        var text: String {
            let each = answers.map {
                "\(RevocationPolicy.role($0.certificate, isLeaf: $0.isLeaf)) (\($0.responder), thisUpdate "
                    + "\(ISO8601.string($0.thisUpdate)))"
            }
            return "not revoked: " + each.joined(separator: ", ") + ", asked \(nowText)"
        }
    }
}

extension Check.Name {
    package static let revocation = RevocationPolicy.name
}
