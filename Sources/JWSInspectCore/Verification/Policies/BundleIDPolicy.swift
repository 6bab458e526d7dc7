/// `bundle-id` (`--bundle-id`): the payload's bundle ID is the expected one; kinds that carry
/// none are noted, not compared (as Apple does).
enum BundleIDPolicy: VerifierPolicy {
    static let name = Check.Name.bundleId
    static let failureStatus = Status.wrongApp
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedBundleId else { return }
        run.expectationsChecked = true
        let identity = run.identity
        if !identity.carriesBundleId {
            run.notes.append(
                "bundle ID not compared: \(run.kind.displayName) carries none (Apple does not compare it either)")
        } else if let actual = identity.bundleId {
            run.record(
                name, actual == expected,
                actual == expected
                    ? "\(identity.bundleIdField) is \(actual)"
                    : "\(identity.bundleIdField) is \"\(actual)\", expected \"\(expected)\"")
        } else {
            run.record(name, false, "the payload has no \(identity.bundleIdField); expected \"\(expected)\"")
        }
    }
}
