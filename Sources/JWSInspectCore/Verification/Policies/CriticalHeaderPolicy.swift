/// `crit`: RFC 7515 §4.1.11: extensions marked critical must be understood, and jwsinspect
/// understands none (App Store data never uses crit).
struct CriticalHeaderPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("crit", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard let critical = token.jws.header.object["crit"] else { return .none }
        return .check(Check(Self.name, passed: false, Detail(critical: critical)))
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
