internal import FoundationEssentials

/// `iat`: a time no later than the check time plus 60 s of clock skew; required by the
/// StoreKit kinds (Apple computes their expiry from it), optional in an API token (Apple's
/// Python library sends none).
struct IssuedAtPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("iat", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned else { return .none }
        let value = token.claims["iat"]
        let at = token.checkTime
        guard let value else {
            return token.kind.isForStoreKit ? Self.outcome(false, ClaimDetail.issuedAtMissing(token.kind)) : .none
        }
        guard let issued = DeveloperClaims.date(value) else {
            return Self.outcome(false, ClaimDetail.notSeconds("iat", value))
        }
        let future = issued.timeIntervalSince(at.date) > DeveloperClaims.allowedSkew
        return Self.outcome(!future, ClaimDetail.issuedAt(issued, at: at, future: future))
    }
}

extension Check.Name {
    package static let iat = IssuedAtPolicy.name
}
