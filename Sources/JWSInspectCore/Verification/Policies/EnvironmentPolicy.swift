/// `environment` (`--environment`): the payload's environment (`environment`, `receiptType`,
/// or a notification body's) is the expected one.
enum EnvironmentPolicy: VerifierPolicy {
    static let name = Check.Name.environment
    static let failureStatus = Status.wrongEnvironment
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedEnvironment else { return }
        run.expectationsChecked = true
        let identity = run.identity
        if let actual = identity.environment {
            run.record(
                name, actual == expected.rawValue,
                actual == expected.rawValue
                    ? "\(identity.environmentField) is \(actual)"
                    : "\(identity.environmentField) is \(actual), expected \(expected.rawValue)")
        } else {
            run.record(name, false, "the payload has no \(identity.environmentField); expected \(expected.rawValue)")
        }
    }
}
