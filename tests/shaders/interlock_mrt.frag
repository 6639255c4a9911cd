#version 450
#extension GL_ARB_fragment_shader_interlock : require
// Pixel-ordered interlock writing six colour outputs of different types: one per attachment of
// the mixed-format draw (each target's export format follows its attachment's format).
layout(pixel_interlock_ordered) in;
layout(location = 0) out vec4 c0;
layout(location = 1) out vec4 c1;
layout(location = 2) out uint c2;
layout(location = 3) out vec4 c3;
layout(location = 4) out vec4 c4;
layout(location = 5) out vec4 c5;
void main() {
    beginInvocationInterlockARB();
    vec4 v = vec4(fract(gl_FragCoord.xy / 16.0), 0.25, 0.5);
    endInvocationInterlockARB();
    c0 = v;
    c1 = v.yxzw;
    c2 = uint(gl_FragCoord.x);
    c3 = v.zzzz;
    c4 = v.wzyx;
    c5 = v;
}
