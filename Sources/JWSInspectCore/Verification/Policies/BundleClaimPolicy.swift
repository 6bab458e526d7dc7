/// `bid`: the app's bundle ID is present, as Apple requires of every developer-signed kind (an
/// App Store Server API token without one is refused with 401; `--bundle-id` compares it, in
/// `BundleIDPolicy`).
enum BundleClaimPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("bid", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard run.isDeveloperSigned else { return }
        let value = run.claims["bid"]
        var passed = false
        if case .string(let bundleID)? = value, !bundleID.isEmpty { passed = true }
        run.record(name, passed, ClaimDetail.bundleID(value, kind: run.kind))
    }
}

extension Check.Name {
    public static let bid = BundleClaimPolicy.name
}
