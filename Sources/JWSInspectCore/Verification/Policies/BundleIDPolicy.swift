/// `bundle-id` (`--bundle-id`): the payload's bundle ID is the expected one; kinds that carry
/// none are noted, not compared (as Apple does).
enum BundleIDPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("bundle-id", failing: .wrongApp)
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedBundleId else { return }
        run.expectationsChecked = true
        let identity = run.identity
        if !identity.carriesBundleId {
            run.notes.append(
                "bundle ID not compared: \(run.kind.displayName) carries none (Apple does not compare it either)")
            return
        }
        let comparison = Comparison(field: identity.bundleIdField, actual: identity.bundleId, expected: expected)
        run.record(name, identity.bundleId == expected, comparison)
    }

    /// The bundle ID seen, and the one expected; both quoted on a mismatch (they differ by a
    /// character more often than not).
    struct Comparison: CheckDetail {
        let field: String
        let actual: String?
        let expected: String

        var text: String {
            guard let actual else { return "the payload has no \(field); expected \"\(expected)\"" }
            return actual == expected ? "\(field) is \(actual)" : "\(field) is \"\(actual)\", expected \"\(expected)\""
        }
    }
}

extension Check.Name {
    public static let bundleId = BundleIDPolicy.name
}
