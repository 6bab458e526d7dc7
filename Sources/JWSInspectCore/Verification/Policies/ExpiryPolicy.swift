internal import FoundationEssentials

/// `exp`: an API token expires at most 60 minutes after `iat` (or after the check time when it
/// has no `iat`) and has not expired; the StoreKit kinds carry none ("including it makes the
/// request fail").
enum ExpiryPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("exp", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard run.isDeveloperSigned else { return }
        let claims = run.claims
        let at = run.checkTime
        if run.kind.isForStoreKit {
            run.record(name, claims["exp"] == nil, ClaimDetail.expiryInStoreKitToken(claims["exp"], kind: run.kind))
            return
        }
        guard let value = claims["exp"] else {
            if run.kind == .apiToken { run.record(name, false, ClaimDetail.expiryMissing) }
            return
        }
        guard let expires = DeveloperClaims.date(value) else {
            run.record(name, false, ClaimDetail.notSeconds("exp", value))
            return
        }
        let issued = DeveloperClaims.date(claims["iat"])
        let lifetime = expires.timeIntervalSince(issued ?? at.date)
        let passed = expires > at.date && lifetime <= DeveloperClaims.maximumLifetime
        run.record(name, passed, ClaimDetail.expiry(expires, at: at, lifetime: lifetime, fromIssue: issued != nil))
    }
}

extension Check.Name {
    public static let exp = ExpiryPolicy.name
}
