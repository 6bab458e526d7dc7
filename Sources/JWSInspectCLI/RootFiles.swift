internal import JWSInspectCore

/// `--root` files: the certificates a run trusts instead of the embedded Apple roots.
enum RootFiles {
    /// Why a `--root` file cannot be used, and the exit status that says so.
    struct Failure: Error {
        let message: String
        let status: ExitStatus
    }

    /// The largest `--root` file read: far more than any bundle of root certificates.
    static let sizeLimit = 1 << 20

    /// The certificates of one `--root` file (DER, or PEM with one or more blocks).
    static func load(_ path: String) -> Result<[Certificate], Failure> {
        switch System.readFile(path, limit: sizeLimit) {
        case .failure(let reason):
            return .failure(Failure(message: "--root: cannot read '\(path)': \(reason)", status: .unreadable))
        case .success(nil):
            return .failure(
                Failure(
                    message: "--root: '\(path)' is over \(InputStream.describe(size: sizeLimit)); not a certificate",
                    status: .usage))
        case .success(let bytes?):
            do {
                return .success(try Certificate.all(fileBytes: bytes))
            } catch {
                return .failure(Failure(message: "--root: '\(path)' is \(error)", status: .usage))
            }
        }
    }

    /// The trust store of `--root` files: nil when none is given (the embedded Apple roots).
    static func trustStore(_ paths: [String]) -> Result<TrustStore?, Failure> {
        guard !paths.isEmpty else { return .success(nil) }
        var roots: [Certificate] = []
        for path in paths {
            switch load(path) {
            case .success(let certificates): roots += certificates
            case .failure(let failure): return .failure(failure)
            }
        }
        return .success(TrustStore(roots: roots))
    }
}
