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
        if run.isXcode {
            run.record(
                name, expected == .xcode, XcodeDetail(payloadSays: identity.environment, expected: expected.rawValue))
            return
        }
        run.record(
            name, identity.environment == expected.rawValue,
            Comparison(field: identity.environmentField, actual: identity.environment, expected: expected.rawValue))
    }

    /// Data StoreKit Testing in Xcode signed is Xcode's whatever its payload says: its key is
    /// on every Mac with Xcode, so a payload saying Production proves nothing.
    struct XcodeDetail: CheckDetail {
        let payloadSays: String?
        let expected: String

        var text: String {
            var text = "signed by StoreKit Testing in Xcode, so its environment is Xcode"
            if let payloadSays, payloadSays != "Xcode" {
                text += " whatever the payload says (\(Excerpt.of(payloadSays)))"
            }
            return expected == "Xcode" ? text : text + "; expected \(expected)"
        }
    }
}

extension Check.Name {
    public static let environment = EnvironmentPolicy.name
}
