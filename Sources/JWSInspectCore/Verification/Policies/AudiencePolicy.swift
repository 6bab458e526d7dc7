/// `aud`: one of Apple's audiences (`PayloadKind.audiences`), which also names the token's kind.
///
/// The claims checks (`aud`, `iss`, `bid`, `iat`, `exp`, `nonce`, `claims`) apply to developer-signed
/// tokens only (a `kid`, no `x5c`), fail with `invalid-claims` (exit 7), and read every claim
/// through `Run.claims` (decoded once, for such tokens only), so they declare no members.
enum AudiencePolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("aud", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard run.isDeveloperSigned else { return }
        let value = run.claims["aud"]
        let passed = run.kind.isDeveloperSigned
        run.record(name, passed, ClaimDetail.audience(value, kind: run.kind))
    }
}

extension Check.Name {
    public static let aud = AudiencePolicy.name
}
