/// `aud`: one of Apple's audiences (`PayloadKind.audiences`), which also names the token's kind.
///
/// The claims checks (`aud`, `iss`, `bid`, `iat`, `exp`, `nonce`, `claims`) apply to developer-signed
/// tokens only (a `kid`, no `x5c`), fail with `invalid-claims` (exit 7), and read every claim
/// through `TokenSubject.claims` (decoded once, for such tokens only), so they declare no members.
struct AudiencePolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("aud", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned else { return .none }
        let value = token.claims["aud"]
        let passed = token.kind.isDeveloperSigned
        return Self.outcome(passed, ClaimDetail.audience(value, kind: token.kind))
    }
}

extension Check.Name {
    package static let aud = AudiencePolicy.name
}
