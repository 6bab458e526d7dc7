internal import FoundationEssentials

/// `exp`: an API token expires at most 60 minutes after `iat` (or after the check time when it
/// has no `iat`) and has not expired; the StoreKit kinds carry none ("including it makes the
/// request fail").
struct ExpiryPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("exp", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned else { return .none }
        let claims = token.claims
        let at = token.checkTime
        if token.kind.isForStoreKit {
            return Self.outcome(
                claims["exp"] == nil, ClaimDetail.expiryInStoreKitToken(claims["exp"], kind: token.kind))
        }
        guard let value = claims["exp"] else {
            return token.kind == .apiToken ? Self.outcome(false, ClaimDetail.expiryMissing) : .none
        }
        guard let expires = DeveloperClaims.date(value) else {
            return Self.outcome(false, ClaimDetail.notSeconds("exp", value))
        }
        let issued = DeveloperClaims.date(claims["iat"])
        let lifetime = expires.timeIntervalSince(issued ?? at.date)
        let passed = expires > at.date && lifetime <= DeveloperClaims.maximumLifetime
        return Self.outcome(passed, ClaimDetail.expiry(expires, at: at, lifetime: lifetime, fromIssue: issued != nil))
    }
}

extension Check.Name {
    package static let exp = ExpiryPolicy.name
}
