import CFaceDetect
import CVipsShim

/// Copies the message a shim handed out and frees it with that shim's own
/// free: `CVipsShim_Free` (the default) or `CFaceDetect_Free`. The one place
/// a C message becomes a String; `fallback` when there is none.
package func takeMessage(
    _ message: UnsafeMutablePointer<CChar>?, fallback: String,
    free: (UnsafeMutableRawPointer?) -> Void = CVipsShim_Free
) -> String {
    guard let message else { return fallback }
    defer { free(message) }
    let text = String(cString: message)
    return text.isEmpty ? fallback : text
}
