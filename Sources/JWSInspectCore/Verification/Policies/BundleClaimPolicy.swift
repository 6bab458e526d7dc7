/// `bid`: the app's bundle ID is present, as Apple requires of every developer-signed kind (an
/// App Store Server API token without one is refused with 401; `--bundle-id` compares it, in
/// `BundleIDPolicy`).
struct BundleClaimPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("bid", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned else { return .none }
        let value = token.claims["bid"]
        var passed = false
        if case .string(let bundleID)? = value, ClaimDetail.isBundleID(bundleID) { passed = true }
        return Self.outcome(passed, ClaimDetail.bundleID(value, kind: token.kind))
    }
}

extension Check.Name {
    package static let bid = BundleClaimPolicy.name
}
