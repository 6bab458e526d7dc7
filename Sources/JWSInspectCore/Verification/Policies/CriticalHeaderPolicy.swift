/// `crit`: RFC 7515 §4.1.11: extensions marked critical must be understood, and jwsinspect
/// understands none (App Store data never uses crit). RFC 7797's `b64` is such an extension:
/// a header with `b64` other than `true` says the payload is not base64url, and RFC 7797
/// requires `b64` in `crit`; reading the payload as base64url anyway would be a guess, so it
/// is refused whether `crit` names it or not (Apple's libraries refuse `b64: false` too).
struct CriticalHeaderPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("crit", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        let header = token.jws.header.object
        if let critical = header["crit"] {
            return .check(Check(Self.name, passed: false, Detail.critical(critical)))
        }
        if let b64 = header["b64"], b64 != .bool(true) {
            return .check(Check(Self.name, passed: false, Detail.unencodedPayload(b64)))
        }
        return .none
    }

    enum Detail: CheckDetail {
        case critical(JSONValue)
        case unencodedPayload(JSONValue)

        var text: String {
            switch self {
            case .critical(let critical):
                "the header marks extensions critical (crit: \(Excerpt.of(PayloadDisplay.rawText(critical)))) "
                    + "that jwsinspect does not understand; RFC 7515 requires refusing the token"
            case .unencodedPayload(let b64):
                "the header has b64: \(Excerpt.of(PayloadDisplay.rawText(b64))) (RFC 7797's unencoded payload) "
                    + "without crit naming it, as RFC 7797 requires; App Store data is never unencoded, and "
                    + "reading the payload as base64url would be a guess"
            }
        }
    }
}

extension Check.Name {
    package static let crit = CriticalHeaderPolicy.name
}
