/// `crit`: RFC 7515 §4.1.11: extensions marked critical must be understood, and jwsinspect
/// understands none (App Store data never uses crit).
enum CriticalHeaderPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("crit", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard let critical = run.jws.header.object["crit"] else { return }
        run.record(name, false, Detail(critical: critical))
    }

    struct Detail: CheckDetail {
        let critical: JSONValue

        var text: String {
            "the header marks extensions critical (crit: \(Excerpt.of(PayloadDisplay.rawText(critical)))) "
                + "that jwsinspect does not understand; RFC 7515 requires refusing the token"
        }
    }
}

extension Check.Name {
    public static let crit = CriticalHeaderPolicy.name
}
