/// `x5c`: the header's certificate list is usable by a trust model. The check itself is
/// decided while the trust model is selected (`TrustModel.select`), once per token.
enum X5CPolicy: VerifierPolicy {
    static let name = Check.Name.x5c
    static let failureStatus = Status.invalidChain
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        if let check = run.x5cCheck { run.record(check) }
    }
}
