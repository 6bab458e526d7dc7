internal import FoundationEssentials

/// `iat`: a time no later than the check time plus 60 s of clock skew; required by the
/// StoreKit kinds (Apple computes their expiry from it), optional in an API token (Apple's
/// Python library sends none).
enum IssuedAtPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("iat", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard run.isDeveloperSigned else { return }
        let value = run.claims["iat"]
        let at = run.checkTime
        guard let value else {
            if run.kind.isForStoreKit { run.record(name, false, ClaimDetail.issuedAtMissing(run.kind)) }
            return
        }
        guard let issued = DeveloperClaims.date(value) else {
            run.record(name, false, ClaimDetail.notSeconds("iat", value))
            return
        }
        let future = issued.timeIntervalSince(at.date) > DeveloperClaims.allowedSkew
        run.record(name, !future, ClaimDetail.issuedAt(issued, at: at, future: future))
    }
}

extension Check.Name {
    public static let iat = IssuedAtPolicy.name
}
