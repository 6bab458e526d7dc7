/// `bundle-id` (`--bundle-id`): the payload's bundle ID is the expected one; kinds that carry
/// none are noted, not compared (as Apple does).
enum BundleIDPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("bundle-id", failing: .wrongApp)
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedBundleId else { return }
        let identity = run.identity
        if !identity.carriesBundleId {
            run.notes.append(
                "bundle ID not compared: \(run.kind.displayName) carries none (Apple does not compare it either)")
            return
        }
        let comparison = Comparison(
            field: identity.bundleIdField, actual: identity.bundleId, expected: expected, quoted: true)
        run.record(name, identity.bundleId == expected, comparison)
    }
}

extension BundleIDPolicy: ReceiptExpectation {
    /// A receipt's `bundle_id` (field 2).
    static func decide(receipt: ReceiptEnvelope, isXcode: Bool, options: VerificationOptions) -> ExpectationOutcome {
        guard let expected = options.expectedBundleId else { return .none }
        let actual = receipt.payload.bundleID
        return .check(
            Check(
                name, passed: actual == expected,
                Comparison(field: "bundle_id", actual: actual, expected: expected, quoted: true)))
    }
}

extension Check.Name {
    public static let bundleId = BundleIDPolicy.name
}
