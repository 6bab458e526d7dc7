// `jwsinspect-fetch`: `jwsinspect fetch`, the one program of jwsinspect's that links a network
// library. `jwsinspect fetch ARGUMENTS` runs it in its place as `jwsinspect-fetch ARGUMENTS`.
import AppStoreServerHTTP
import JWSInspectCLI

Command.main(fetchingWith: URLSessionTransport())
