/// `alg`: the header's algorithm is one the trust model allows (ES256 for every model today).
enum AlgorithmPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("alg", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        let allowed = run.model?.allowedAlgorithms ?? TrustModel.appStoreAlgorithms
        let header = run.jws.header.object
        switch header["alg"] {
        case .string(let alg)? where allowed.contains(alg):
            run.record(name, true, alg)
        case .string(let alg)?:
            run.record(name, false, ForeignJWT.Detail.algorithm(alg, header: header, payload: run.jws.payload.object))
        case let other?:
            run.record(name, false, Detail.notAString(other))
        case nil:
            run.record(name, false, "the header has no alg; expected \"ES256\"")
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
    public static let alg = AlgorithmPolicy.name
}
