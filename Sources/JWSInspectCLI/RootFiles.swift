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
}
