/// `jwsinspect-fetch`, the program `jwsinspect fetch` runs: the one that links a network
/// library (URLSession, libcurl underneath on Linux), so that `jwsinspect` links none.
enum Companion {
    static let name = "jwsinspect-fetch"

    /// Where it belongs: beside this executable, symbolic links resolved (nil when the
    /// executable's own path cannot be read).
    static var path: String? {
        guard let executable = System.executablePath(), let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + name
    }

    /// `path` when an executable file is there.
    static var installedPath: String? {
        path.flatMap { System.isExecutableFile($0) ? $0 : nil }
    }

    /// What `fetch` says when the companion is not there.
    static var missing: String {
        "\(name), the program that sends fetch's requests, is not installed beside jwsinspect"
            + (path.map { " (\($0))" } ?? "")
            + ": jwsinspect links no network library; install both from jwsinspect's source with 'make install'"
    }
}
