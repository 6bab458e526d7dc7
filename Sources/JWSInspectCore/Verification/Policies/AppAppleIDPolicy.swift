/// `app-apple-id` (`--app-apple-id`): the payload's app Apple ID is the expected one; an
/// absent one fails only in Production, as Apple requires it only there.
enum AppAppleIDPolicy: VerifierPolicy {
    static let name = Check.Name.appAppleId
    static let failureStatus = Status.wrongApp
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedAppAppleId else { return }
        run.expectationsChecked = true
        let identity = run.identity
        if !identity.carriesAppAppleId {
            run.notes.append("app Apple ID not compared: \(run.kind.displayName) carries none")
        } else if let actual = identity.appAppleId {
            run.record(
                name, actual == expected,
                actual == expected
                    ? "\(identity.appAppleIdField) is \(actual)"
                    : "\(identity.appAppleIdField) is \(actual), expected \(expected)")
        } else if let environment = run.options.expectedEnvironment, environment != .production {
            run.notes.append(
                "app Apple ID not compared: \(identity.appAppleIdField) is absent, and Apple requires it only in Production"
            )
        } else {
            run.record(name, false, "the payload has no \(identity.appAppleIdField); expected \(expected)")
        }
    }
}
