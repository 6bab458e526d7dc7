/// `alg`: the header's algorithm is one the trust model allows (ES256 for every model today).
struct AlgorithmPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("alg", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        let allowed = token.model?.allowedAlgorithms ?? TrustModel.appStoreAlgorithms
        let header = token.jws.header.object
        return switch header["alg"] {
        case .string(let alg)? where allowed.contains(alg):
            .check(Check(Self.name, passed: true, alg))
        case .string(let alg)?:
            .check(
                Check(
                    Self.name, passed: false,
                    ForeignJWT.Detail.algorithm(alg, header: header, payload: token.jws.payload.object)))
        case let other?:
            .check(Check(Self.name, passed: false, Detail.notAString(other)))
        case nil:
            .check(Check(Self.name, passed: false, "the header has no alg; expected \"ES256\""))
        }
    }

    enum Detail: CheckDetail {
        case notAString(JSONValue)

        var text: String {
            switch self {
            case .notAString(let value): "alg is \(value.kindDescription), expected the string \"ES256\""
            }
        }
    }
}

extension Check.Name {
    package static let alg = AlgorithmPolicy.name
}
