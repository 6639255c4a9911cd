#version 450
// No interlock: a gradient, for the lavapipe image comparison.
layout(location = 0) out vec4 color;
void main() {
    color = vec4(fract(gl_FragCoord.x / 16.0), fract(gl_FragCoord.y / 16.0), 0.25, 1.0);
}
