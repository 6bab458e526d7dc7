/// `active` (`--require-active`): the transaction or app transaction decided on grants access
/// at the access time (`Entitlement.access`).
enum ActivePolicy: VerifierPolicy {
    static let name = Check.Name.active
    static let failureStatus = Status.inactive
    static let payloadMembers = Entitlement.accessKeys

    static func apply(to run: inout Run) {
        guard run.options.requireActive else { return }
        run.expectationsChecked = true
        let decisive = run.subjects.first { $0.kind == .transaction || $0.kind == .appTransaction }
        let at = run.options.accessTime
        let when = run.options.timePolicy == .signingTime ? "now" : "at \(ISO8601.string(at))"
        if let decisive {
            let access = Entitlement.access(kind: decisive.kind, payload: decisive.payload, at: at)
            run.record(
                name, access.grantsAccess == true, "\(decisive.label)\(access.explanation) (access checked \(when))")
        } else {
            let access = Entitlement.access(kind: run.kind, payload: run.jws.payload.essentials, at: at)
            run.record(name, false, access.explanation)
        }
    }
}
