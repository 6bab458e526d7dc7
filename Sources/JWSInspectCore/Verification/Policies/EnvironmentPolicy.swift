/// `environment` (`--environment`): the payload's environment (`environment`, `receiptType`,
/// or a notification body's) is the expected one.
enum EnvironmentPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("environment", failing: .wrongEnvironment)
    static let payloadMembers = AppIdentity.payloadMembers

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedEnvironment else { return }
        run.expectationsChecked = true
        if run.kind.isDeveloperSigned {
            run.notes.append("environment not compared: a \(run.kind.displayName) names none")
            return
        }
        let identity = run.identity
        run.record(
            name, identity.environment == expected.rawValue,
            Comparison(field: identity.environmentField, actual: identity.environment, expected: expected.rawValue))
    }
}

extension Check.Name {
    public static let environment = EnvironmentPolicy.name
}
