internal import FoundationEssentials

/// `account-token` (`--account-token`): every transaction or renewal info decided on (the
/// payload, or those nested in a notification) carries the expected `appAccountToken`.
enum AccountTokenPolicy: VerifierPolicy {
    static let name = Check.Name.accountToken
    static let failureStatus = Status.wrongApp
    static let payloadMembers = ["appAccountToken"]

    static func apply(to run: inout Run) {
        guard let expected = run.options.expectedAccountToken else { return }
        run.expectationsChecked = true
        let carriers = run.subjects.filter { $0.kind == .transaction || $0.kind == .renewalInfo }
        let wanted = expected.uuidString.lowercased()
        if carriers.isEmpty {
            run.record(
                name, false,
                "\(run.kind.displayName) carries no transaction or renewal info with an appAccountToken; expected \(wanted)"
            )
        }
        for subject in carriers {
            let field = "\(subject.label)appAccountToken"
            switch subject.payload["appAccountToken"] {
            case .string(let actual)? where UUID(uuidString: actual) == expected:
                run.record(name, true, "\(field) is \(actual)")
            case .string(let actual)?:
                run.record(name, false, "\(field) is \(actual), expected \(wanted)")
            case let other?:
                run.record(name, false, "\(field) is \(other.kindDescription), expected \(wanted)")
            case nil:
                run.record(name, false, "\(field) is absent (the purchase set none), expected \(wanted)")
            }
        }
    }
}
